import { copyFile, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative, sep } from "node:path";
import { git, LITERAL, nulList, onDisk, sortedUnique, why } from "./worktree-git.js";

/** The main work tree as applying a phase commit sees it: what may not be overwritten, and its index as a tree. */

/** Paths among `paths` that applying a phase commit must not overwrite (see applyPhaseCommit). */
export async function dirtyPaths(
  root: string,
  paths: string[],
  appliedFiles: string[] | undefined,
): Promise<{ ok: true; files: string[] } | { ok: false; reason: string }> {
  const dirty = new Set<string>();
  // GIT_OPTIONAL_LOCKS=0: status compares contents but does not write refreshed stat data into the index.
  const status = await git(
    root,
    [
      "status",
      "--porcelain=v1",
      "-z",
      "--untracked-files=all",
      "--ignored=matching",
      "--no-renames",
      "--",
      ...paths,
    ],
    { env: { ...LITERAL, GIT_OPTIONAL_LOCKS: "0" } },
  );
  if (!status.ok) return { ok: false, reason: `git status failed: ${why(status)}` };
  const applied = appliedFiles === undefined ? null : new Set(appliedFiles);
  for (const path of statusDirty(status.stdout, applied)) dirty.add(path);
  const blocked = await blockedPaths(root, paths);
  if (!blocked.ok) return blocked;
  for (const path of blocked.files) dirty.add(path);
  return { ok: true, files: sortedUnique(dirty) };
}

/** Paths `git status` shows as untracked, ignored, unmerged, changed unstaged, or staged by someone else. */
function statusDirty(porcelain: string, applied: ReadonlySet<string> | null): string[] {
  const dirty: string[] = [];
  for (const entry of nulList(porcelain)) {
    const x = entry[0];
    const y = entry[1];
    const path = entry.slice(3);
    if (
      x === "?" ||
      x === "!" ||
      x === "U" ||
      y === "U" ||
      (x === "A" && y === "A") ||
      (x === "D" && y === "D")
    ) {
      dirty.push(path);
    } else if (y !== " ") {
      dirty.push(path);
    } else if (applied !== null && x !== " " && !applied.has(path)) {
      dirty.push(path);
    }
  }
  return dirty;
}

/** Paths in the way on disk that the index does not know, and untracked files where the phase needs a folder. */
async function blockedPaths(
  root: string,
  paths: string[],
): Promise<{ ok: true; files: string[] } | { ok: false; reason: string }> {
  const dirty: string[] = [];
  // Anything on disk that the index does not know (status omits e.g. a file where a directory must go).
  const listed = await git(root, ["ls-files", "-z", "--", ...paths], { env: LITERAL });
  if (!listed.ok) return { ok: false, reason: `git ls-files failed: ${why(listed)}` };
  const tracked = new Set(nulList(listed.stdout));
  const blockers = new Map<string, string>();
  for (const path of paths) {
    if (tracked.has(path)) continue;
    const found = await onDisk(join(root, path));
    if (found === null) continue;
    const blocker = relative(root, found).split(sep).join("/");
    if (blocker === path) dirty.push(path);
    else blockers.set(path, blocker);
  }
  // A file where the phase needs a directory is in the way only if git does not track it (a tracked one
  // is either removed by the phase or makes the merge conflict).
  if (blockers.size > 0) {
    const known = await git(root, ["ls-files", "-z", "--", ...new Set(blockers.values())], { env: LITERAL });
    if (!known.ok) return { ok: false, reason: `git ls-files failed: ${why(known)}` };
    const trackedBlockers = new Set(nulList(known.stdout));
    for (const [path, blocker] of blockers) if (!trackedBlockers.has(blocker)) dirty.push(path);
  }
  return { ok: true, files: dirty };
}

/** The tree of the current index, written from a copy so the real index file is left byte for byte. */
export async function indexTree(
  root: string,
): Promise<{ ok: true; tree: string } | { ok: false; reason: string }> {
  const indexPath = await git(root, ["rev-parse", "--path-format=absolute", "--git-path", "index"]);
  if (!indexPath.ok) return { ok: false, reason: `git rev-parse failed: ${why(indexPath)}` };
  const scratch = await mkdtemp(join(tmpdir(), "baton-index-"));
  try {
    const copy = join(scratch, "index");
    try {
      await copyFile(indexPath.stdout.trim(), copy);
    } catch (error) {
      // No index file yet: git reads a missing index file as an empty index.
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
    const env = { GIT_INDEX_FILE: copy };
    const tree = await git(root, ["write-tree"], { env });
    if (!tree.ok) return { ok: false, reason: `git write-tree failed: ${why(tree)}` };
    return { ok: true, tree: tree.stdout.trim() };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
