import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * The environment that runs the real opencode binary offline (opencode contract 1.2): an isolated home,
 * no model catalog fetch, no update, LSP download or sharing, and an Anthropic provider pointed at the
 * scripted fake Messages API. `remove` deletes the home.
 *
 * npm offline with an empty cache of its own: opencode installs its plugin SDK (`@opencode-ai/plugin`) into
 * every config directory it finds (the home's and the repository's `.opencode/`) at each start until one
 * install succeeds, through npm's registry or the machine's npm cache; that took 10–14 s of each start and
 * reached the network. Baton's plugin imports only Node's built-ins, so the install may fail, and fails at once.
 */
export function offlineOpencodeEnv(apiUrl: string): { env: Record<string, string>; remove: () => void } {
  const home = mkdtempSync(join(tmpdir(), "baton-opencode-home-"));
  // Its temp files as well (the native libraries its runtime unpacks, its own folder): otherwise they stay in /tmp.
  mkdirSync(join(home, "tmp"));
  const provider = { anthropic: { options: { baseURL: `${apiUrl}/v1`, apiKey: "sk-test" } } };
  return {
    env: {
      HOME: home,
      TMPDIR: join(home, "tmp"),
      XDG_CONFIG_HOME: join(home, ".config"),
      XDG_DATA_HOME: join(home, ".local/share"),
      XDG_CACHE_HOME: join(home, ".cache"),
      XDG_STATE_HOME: join(home, ".local/state"),
      OPENCODE_DISABLE_MODELS_FETCH: "1",
      OPENCODE_DISABLE_AUTOUPDATE: "1",
      OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
      OPENCODE_DISABLE_SHARE: "1",
      npm_config_offline: "true",
      npm_config_cache: join(home, ".npm"),
      OPENCODE_CONFIG_CONTENT: JSON.stringify({ provider, share: "disabled", autoupdate: false }),
    },
    remove: () => rmSync(home, { recursive: true, force: true }),
  };
}
