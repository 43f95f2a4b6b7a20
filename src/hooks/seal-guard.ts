// side doors: a hook starts on every tool call; the state barrel would bring the store's writers and zod.
import { join } from "node:path";
import { BATON_DIR, storeInternalPaths } from "../shared/baton-paths.js";
import { present } from "../shared/present.js";
import type { Project } from "./project.js";

/**
 * After every tool call: a sealed store file (state.json, TODO.md, the archive's state.json) that no
 * longer matches Baton's last write was changed some other way — by this call, whatever trick it used —
 * and is restored under the store lock. Returns what to tell the model, or null. Loaded lazily: only a
 * repository Baton has written has a seal.
 */
export async function guardSeal(project: Project): Promise<SealVerdict> {
  const internal = join(project.specsDir, BATON_DIR);
  if (!present(join(storeInternalPaths(internal).seal, "manifest.json")))
    return { restored: null, intact: false };
  const [seal, { specsPaths }] = await Promise.all([import("../state/seal.js"), import("../state/paths.js")]);
  if (seal.findForeignChanges(specsPaths(project.specsDir)).length === 0)
    return { restored: null, intact: true };
  return { restored: await restoreForeignChanges(project), intact: false };
}

/**
 * `intact`: a seal exists and every sealed file holds exactly Baton's last write, so the call changed none
 * of them and they validate as they did when Baton wrote them.
 */
export interface SealVerdict {
  restored: string | null;
  intact: boolean;
}

async function restoreForeignChanges(project: Project): Promise<string | null> {
  const [seal, { specsPaths }, { acquireLock }] = await Promise.all([
    import("../state/seal.js"),
    import("../state/paths.js"),
    import("../state/lock.js"),
  ]);
  const paths = specsPaths(project.specsDir);
  let release: () => void;
  try {
    release = await acquireLock(paths.lock, { timeoutMs: 2_000, command: "baton hook (restore the store)" });
  } catch {
    return null;
  }
  try {
    // A Baton write that crashed mid-commit is Baton's own: the next Baton command rolls it forward.
    if (present(paths.journal)) return null;
    const changes = seal.findForeignChanges(paths);
    if (changes.length === 0) return null;
    const restored = seal.restoreSealed(paths, changes);
    if (restored.length === 0) return null;
    return `${seal.describeForeignChanges(restored)} changed outside Baton in this tool call and Baton restored its last write. Baton is the only writer of the task store: an operation's result is recorded by its \`baton gate-out\` once the delegated agent has written it.`;
  } finally {
    release();
  }
}
