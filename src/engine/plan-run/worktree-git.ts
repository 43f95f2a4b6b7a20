import { lstat, realpath } from "node:fs/promises";
import { dirname, isAbsolute, relative, resolve } from "node:path";
import { runGitWaitingForLock as git } from "../../shared/git.js";

/** The git runner and small path and list helpers shared by worktree.ts and worktree-apply.ts. */

export { git };

type GitResult = Awaited<ReturnType<typeof git>>;

export function why(result: GitResult): string {
  if (result.ok) return "";
  return result.stderr.trim() || result.message;
}

/** `-z` output split into entries, the empty tail dropped. */
export function nulList(text: string): string[] {
  return text.split("\0").filter((entry) => entry !== "");
}

/** Every pathspec literal: file names with `*`, `[` or `:` mean themselves. */
export const LITERAL = { GIT_LITERAL_PATHSPECS: "1" };

export function sortedUnique(paths: Iterable<string>): string[] {
  return [...new Set(paths)].sort();
}

export async function changedBetween(
  cwd: string,
  from: string,
  to: string,
): Promise<{ ok: true; files: string[] } | { ok: false; reason: string }> {
  const diff = await git(cwd, ["diff-tree", "-r", "-z", "--no-renames", "--name-only", from, to]);
  if (!diff.ok) return { ok: false, reason: `git diff-tree failed: ${why(diff)}` };
  return { ok: true, files: sortedUnique(nulList(diff.stdout)) };
}

export async function canonical(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch {
    return resolve(path);
  }
}

export function inside(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel);
}

export async function exists(path: string): Promise<boolean> {
  return (await onDisk(path)) !== null;
}

/**
 * What occupies `path` on disk: the path itself, the file standing where one of its leading directories
 * should be, or null when nothing is in the way.
 */
export async function onDisk(path: string): Promise<string | null> {
  try {
    await lstat(path);
    return path;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOTDIR") return null;
    for (let dir = dirname(path); dir !== dirname(dir); dir = dirname(dir)) {
      try {
        if (!(await lstat(dir)).isDirectory()) return dir;
      } catch {
        // Not there either: look further up.
      }
    }
    return null;
  }
}
