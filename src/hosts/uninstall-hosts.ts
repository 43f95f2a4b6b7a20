import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type FileChange, type InitPlan, MANIFEST_PATH, readManifest, sha256 } from "../init/index.js";
import { present } from "../shared/present.js";
import type { Host } from "./host.js";

const nothingRemoved = (path: string): InitPlan["settings"] => ({
  path,
  hooksAdded: [],
  hooksRemoved: [],
  permissionsAdded: [],
  permissionsRemoved: [],
});

/** Baton's files still byte-identical to what it wrote are deleted (and a backup put back); changed ones are kept. */
function planFileRemoval(
  root: string,
  files: { path: string; sha256: string; backup?: string | undefined }[],
) {
  const changes: FileChange[] = [];
  const kept: InitPlan["kept"] = [];
  for (const file of files) {
    const abs = join(root, file.path);
    if (!present(abs)) continue;
    const content = readFileSync(abs, "utf8");
    if (sha256(content) !== file.sha256) {
      kept.push({ path: file.path, reason: "changed since baton init wrote it; left in place" });
      continue;
    }
    changes.push({ path: file.path, action: "delete", before: content, after: null });
    if (file.backup && present(join(root, file.backup))) {
      const saved = readFileSync(join(root, file.backup), "utf8");
      changes.push({ path: file.path, action: "restore", before: null, after: saved, from: file.backup });
    }
  }
  return { changes, kept };
}

/**
 * What `baton init --uninstall` would do: only what the manifest says Baton added, and of the files
 * only those still byte-identical to what it wrote; each host takes its entries out of its own settings
 * file. The manifest goes last, so an interrupted uninstall can simply be run again.
 */
export async function planUninstall(root: string, hosts: readonly Host[]): Promise<InitPlan> {
  const found = readManifest(root);
  const primary = hosts.find((h) => h.primary)!;
  const base = { root, mode: "uninstall" as const, conflicts: [], warnings: [] };
  if (!found) {
    return {
      ...base,
      bin: "",
      hooks: "command",
      changes: [],
      kept: [],
      removeDirs: [],
      settings: nothingRemoved(primary.installer.settingsFile),
      upToDate: true,
      notInstalled: true,
    };
  }
  const { manifest, text } = found;
  const { changes, kept } = planFileRemoval(root, manifest.files);
  let settings = nothingRemoved(primary.installer.settingsFile);
  for (const host of hosts) {
    const planned = await host.installer.uninstallSettings(root, manifest);
    if (planned?.write) changes.push(planned.write);
    changes.push(...(planned?.moreWrites ?? []));
    if (host.primary && planned?.summary) settings = planned.summary;
  }
  changes.push({ path: MANIFEST_PATH, action: "delete", before: text, after: null });
  return {
    ...base,
    bin: manifest.bin,
    hooks: manifest.hooks,
    hosts: hosts.filter((h) => h.installer.installedIn(manifest)).map((h) => h.name),
    ...(manifest.port === undefined ? {} : { port: manifest.port }),
    changes,
    kept,
    removeDirs: [...manifest.dirs].sort((a, b) => b.length - a.length),
    settings,
    upToDate: false,
  };
}
