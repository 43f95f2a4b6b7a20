import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { claudeOfflineEnv } from "./claude-test-binary.js";
import { type FakeMessagesApi, type ScriptInput, startFakeMessagesApi } from "./fake-messages-api.js";

export interface OfflineClaude {
  api: FakeMessagesApi;
  /** The environment that points Claude Code at the fake API with an empty config dir (contract 1.1). */
  env: Record<string, string>;
  /** Stops the fake API and removes the config dir. */
  close: () => Promise<void>;
}

/** Everything a test needs to run the real Claude Code binary offline against a scripted fake API. */
export async function startOfflineClaude(script: ScriptInput): Promise<OfflineClaude> {
  const configDir = mkdtempSync(join(tmpdir(), "baton-claude-config-"));
  mkdirSync(join(configDir, "home"));
  mkdirSync(join(configDir, "tmp"));
  const api = await startFakeMessagesApi(script);
  return {
    api,
    env: claudeOfflineEnv(api.url, configDir),
    close: async () => {
      await api.close();
      rmSync(configDir, { recursive: true, force: true });
    },
  };
}
