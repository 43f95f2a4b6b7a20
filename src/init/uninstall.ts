import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { MANIFEST_PATH, readManifest, sha256 } from "./manifest.js";
import { planOpencodeConfigUninstall, readOpencodeConfig } from "./opencode-config.js";
import type { FileChange, InitPlan } from "./plan.js";
import { planSettingsUninstall, readSettings, SETTINGS_PATH } from "./settings.js";

/**
 * What `baton init --uninstall` would do: only what the manifest says Baton added, and of the files
 * only those still byte-identical to what it wrote. The manifest goes last, so an interrupted
 * uninstall can simply be run again.
 */
export async function planUninstall(root: string): Promise<InitPlan> {
  const settingsPath = SETTINGS_PATH;
  const found = readManifest(root);
  const base = {
    root,
    mode: "uninstall" as const,
    conflicts: [],
    warnings: [],
    settings: {
      path: settingsPath,
      hooksAdded: [],
      hooksRemoved: [] as InitPlan["settings"]["hooksRemoved"],
      permissionsAdded: [],
      permissionsRemoved: [] as string[],
    },
  };
  if (!found) {
    return {
      ...base,
      bin: "",
      hooks: "command",
      changes: [],
      kept: [],
      removeDirs: [],
      upToDate: true,
      notInstalled: true,
    };
  }
  const { manifest, text } = found;
  const settingsFile = readSettings(root);
  const changes: FileChange[] = [];
  const kept: InitPlan["kept"] = [];
  for (const file of manifest.files) {
    const abs = join(root, file.path);
    if (!existsSync(abs)) continue;
    const content = readFileSync(abs, "utf8");
    if (sha256(content) !== file.sha256) {
      kept.push({ path: file.path, reason: "changed since baton init wrote it; left in place" });
      continue;
    }
    changes.push({ path: file.path, action: "delete", before: content, after: null });
    if (file.backup && existsSync(join(root, file.backup))) {
      const saved = readFileSync(join(root, file.backup), "utf8");
      changes.push({ path: file.path, action: "restore", before: null, after: saved, from: file.backup });
    }
  }
  if (settingsFile.exists) {
    const plan = await planSettingsUninstall(settingsFile, manifest.settings);
    if (plan.after !== settingsFile.text) {
      changes.push({
        path: settingsPath,
        action: plan.after === null ? "delete" : "update",
        before: settingsFile.text,
        after: plan.after,
      });
    }
    base.settings.hooksRemoved = plan.removed;
    base.settings.permissionsRemoved = plan.permissionsRemoved;
  }
  const codexFile = manifest.codex ? readSettings(root, manifest.codex.path) : null;
  if (manifest.codex && codexFile?.exists) {
    const plan = await planSettingsUninstall(codexFile, manifest.codex);
    if (plan.after !== codexFile.text) {
      changes.push({
        path: manifest.codex.path,
        action: plan.after === null ? "delete" : "update",
        before: codexFile.text,
        after: plan.after,
      });
    }
  }
  if (manifest.opencode) {
    const file = readOpencodeConfig(root, manifest.opencode.path);
    const after = planOpencodeConfigUninstall(file, manifest.opencode);
    if (file.exists && after !== file.text) {
      changes.push({
        path: manifest.opencode.path,
        action: after === null ? "delete" : "update",
        before: file.text,
        after,
      });
    }
  }
  changes.push({ path: MANIFEST_PATH, action: "delete", before: text, after: null });
  return {
    ...base,
    bin: manifest.bin,
    hooks: manifest.hooks,
    ...(manifest.port === undefined ? {} : { port: manifest.port }),
    changes,
    kept,
    removeDirs: [...manifest.dirs].sort((a, b) => b.length - a.length),
    upToDate: false,
  };
}
