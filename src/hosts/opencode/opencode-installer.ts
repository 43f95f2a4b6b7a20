import { isAbsolute } from "node:path";
import { settingsRemoval, settingsWrite } from "../../init/index.js";
import { UsageError } from "../../shared/index.js";
import type { HostInstaller } from "../host.js";
import { mcpCommand } from "../mcp-command.js";
import { OPENCODE_DIRS, opencodeFiles } from "./install-files.js";
import { opencodeLayout } from "./opencode-layout.js";
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
  // The plugin asks the repository's hook server: on the HTTP hooks' port, else where the resident one publishes its port.
  files: ({ root, bin, hooks, port, previous }) =>
    opencodeFiles(bin, hooks === "http" ? port : null, opencodeLayout(root, previous)),
  async settings({ root, bin, specsDir, previous, mcp }) {
    if (isAbsolute(specsDir)) {
      throw new UsageError(`specsDir ${specsDir} is outside the repository ${root}`, {
        hint: "opencode's permission rules name project paths; keep specsDir inside the repository.",
      });
    }
    const file = readOpencodeConfig(root, previous?.opencode?.path);
    const server = mcp ? Object.values(mcpCommand(bin)).flat() : null;
    const planned = planOpencodeConfigInstall(file, storeEditPatterns(specsDir), previous?.opencode, server);
    return {
      write: settingsWrite(file.path, file, planned.after, planned.changed),
      record: { opencode: planned.record },
      warnings: [],
    };
  },
  async uninstallSettings(root, manifest) {
    if (!manifest.opencode) return null;
    const file = readOpencodeConfig(root, manifest.opencode.path);
    const after = planOpencodeConfigUninstall(file, manifest.opencode);
    if (!file.exists) return null;
    return { write: settingsRemoval(manifest.opencode.path, file, after), record: {}, warnings: [] };
  },
};
