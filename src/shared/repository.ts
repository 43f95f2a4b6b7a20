import { dirname, join, resolve } from "node:path";
import { NothingHereError } from "./errors.js";
import { present } from "./present.js";

/** The folder holding `.git` (a folder, or a file in a worktree or submodule) at or above `start`, or null. */
export function gitWorkTree(start: string): string | null {
  let dir = resolve(start);
  for (;;) {
    if (present(join(dir, ".git"))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

/**
 * Operations commit what they verified and `verify` reads git history: outside a repository there is
 * nothing to commit to or verify, so they refuse before anything runs instead of reporting success.
 */
export function requireRepository(root: string, doing: string): void {
  if (gitWorkTree(root) !== null) return;
  throw new NothingHereError("NOT_A_REPOSITORY", `${root} is not inside a git repository, so ${doing}`, {
    hint: "Run Baton from your repository (or `git init` here first); nothing was run or written.",
  });
}
