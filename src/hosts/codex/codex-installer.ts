import {
  planSettingsInstall,
  planSettingsUninstall,
  readSettings,
  settingsRemoval,
  settingsWrite,
} from "../../init/index.js";
import type { HostInstaller } from "../host.js";
import { CODEX_HOOKS_PATH, codexHookEntries } from "./codex-hooks.js";

/** Codex CLI's part of `baton init`: Baton's hooks in `.codex/hooks.json`, recorded like Claude Code's settings. */
export const codexInstaller: HostInstaller = {
  settingsFile: CODEX_HOOKS_PATH,
  dirs: [".codex"],
  installedIn: (manifest) => manifest.codex !== undefined,
  files: () => [],
  async settings({ root, bin, hooks, port, previous }) {
    const file = readSettings(root, CODEX_HOOKS_PATH);
    const planned = await planSettingsInstall(
      file,
      codexHookEntries(bin, hooks, port),
      [],
      previous?.codex,
      CODEX_HOOKS_PATH,
    );
    return {
      write: settingsWrite(CODEX_HOOKS_PATH, file, planned.after, planned.changed),
      record: { codex: planned.record },
      warnings: [],
    };
  },
  async uninstallSettings(root, manifest) {
    if (!manifest.codex) return null;
    const file = readSettings(root, manifest.codex.path);
    if (!file.exists) return null;
    const planned = await planSettingsUninstall(file, manifest.codex);
    return { write: settingsRemoval(manifest.codex.path, file, planned.after), record: {}, warnings: [] };
  },
};
