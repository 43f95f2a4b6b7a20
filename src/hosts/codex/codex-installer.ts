import { planSettingsInstall, planSettingsUninstall, readSettings } from "../../init/index.js";
import type { HostInstaller } from "../host.js";
import { CODEX_HOOKS_PATH, codexHookEntries } from "./codex-hooks.js";

/** Codex CLI's part of `baton init`: Baton's hooks in `.codex/hooks.json`, recorded like Claude Code's settings. */
export const codexInstaller: HostInstaller = {
  settingsFile: CODEX_HOOKS_PATH,
  dirs: [".codex"],
  installedIn: (manifest) => manifest.codex !== undefined,
  files: () => [],
  async settings({ root, bin, previous }) {
    const file = readSettings(root, CODEX_HOOKS_PATH);
    const planned = await planSettingsInstall(
      file,
      codexHookEntries(bin),
      [],
      previous?.codex,
      CODEX_HOOKS_PATH,
    );
    return {
      write: planned.changed
        ? {
            path: CODEX_HOOKS_PATH,
            action: file.exists ? "update" : "create",
            before: file.text,
            after: planned.after,
          }
        : null,
      record: { codex: planned.record },
      warnings: [],
    };
  },
  async uninstallSettings(root, manifest) {
    if (!manifest.codex) return null;
    const file = readSettings(root, manifest.codex.path);
    if (!file.exists) return null;
    const planned = await planSettingsUninstall(file, manifest.codex);
    if (planned.after === file.text) return null;
    return {
      write: {
        path: manifest.codex.path,
        action: planned.after === null ? "delete" : "update",
        before: file.text,
        after: planned.after,
      },
      record: {},
      warnings: [],
    };
  },
};
