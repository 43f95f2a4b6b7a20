import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * The environment that runs the real opencode binary offline (opencode contract 1.2): an isolated home,
 * no model catalog fetch, no update, LSP download or sharing, and an Anthropic provider pointed at the
 * scripted fake Messages API. `remove` deletes the home.
 */
export function offlineOpencodeEnv(apiUrl: string): { env: Record<string, string>; remove: () => void } {
  const home = mkdtempSync(join(tmpdir(), "baton-opencode-home-"));
  const provider = { anthropic: { options: { baseURL: `${apiUrl}/v1`, apiKey: "sk-test" } } };
  return {
    env: {
      HOME: home,
      XDG_CONFIG_HOME: join(home, ".config"),
      XDG_DATA_HOME: join(home, ".local/share"),
      XDG_CACHE_HOME: join(home, ".cache"),
      XDG_STATE_HOME: join(home, ".local/state"),
      OPENCODE_DISABLE_MODELS_FETCH: "1",
      OPENCODE_DISABLE_AUTOUPDATE: "1",
      OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
      OPENCODE_DISABLE_SHARE: "1",
      OPENCODE_CONFIG_CONTENT: JSON.stringify({ provider, share: "disabled", autoupdate: false }),
    },
    remove: () => rmSync(home, { recursive: true, force: true }),
  };
}
