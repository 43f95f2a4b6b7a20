import type { HostInstaller } from "../host.js";
import { OPENCODE_DIRS, opencodeFiles } from "./install-files.js";
import {
  planOpencodeConfigInstall,
  planOpencodeConfigUninstall,
  readOpencodeConfig,
  storeEditPatterns,
} from "./permission-rules.js";

/**
 * opencode's part of `baton init`: commands, Baton's agents and the plugin in `.opencode/`, and deny rules
 * for the store's files in `permission.edit` of opencode.json(c).
 */
export const opencodeInstaller: HostInstaller = {
  settingsFile: "opencode.json",
  dirs: OPENCODE_DIRS,
  installedIn: (manifest) => manifest.opencode !== undefined,
  files: ({ bin }) => opencodeFiles(bin),
  async settings({ root, specsDir, previous }) {
    const file = readOpencodeConfig(root, previous?.opencode?.path);
    const planned = planOpencodeConfigInstall(file, storeEditPatterns(specsDir), previous?.opencode);
    return {
      write: planned.changed
        ? {
            path: file.path,
            action: file.exists ? "update" : "create",
            before: file.text,
            after: planned.after,
          }
        : null,
      record: { opencode: planned.record },
      warnings: [],
    };
  },
  async uninstallSettings(root, manifest) {
    if (!manifest.opencode) return null;
    const file = readOpencodeConfig(root, manifest.opencode.path);
    const after = planOpencodeConfigUninstall(file, manifest.opencode);
    if (!file.exists || after === file.text) return null;
    return {
      write: {
        path: manifest.opencode.path,
        action: after === null ? "delete" : "update",
        before: file.text,
        after,
      },
      record: {},
      warnings: [],
    };
  },
};
