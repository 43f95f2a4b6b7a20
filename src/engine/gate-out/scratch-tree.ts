import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { BATON_DIR } from "../../shared/baton-paths.js";
import { runGit, runGitWorktree } from "../../shared/git.js";
import { present } from "../../shared/present.js";

/**
 * A clean checkout of one commit, beside the repository, for running its checks as that commit has them:
 * a detached worktree, with the repository's ignored top-level folders (node_modules, a virtualenv: what
 * installing the project made) linked in, and nothing else of the work tree. Removed afterwards; null
 * when git cannot make it.
 */
export async function withScratchTree<T>(
  root: string,
  commit: string,
  use: (tree: string) => Promise<T>,
): Promise<T | null> {
  const tree = join(mkdtempSync(join(tmpdir(), "baton-scratch-")), "tree");
  const added = await runGitWorktree(root, ["add", "--detach", "--quiet", tree, commit]);
  if (!added.ok) {
    rmSync(dirname(tree), { recursive: true, force: true });
    return null;
  }
  try {
    await linkIgnoredFolders(root, tree);
    return await use(tree);
  } finally {
    await runGitWorktree(root, ["remove", "--force", tree]);
    rmSync(dirname(tree), { recursive: true, force: true });
  }
}

async function linkIgnoredFolders(root: string, tree: string): Promise<void> {
  const ignored = await runGit(root, [
    "ls-files",
    "--others",
    "--ignored",
    "--exclude-standard",
    "--directory",
    "-z",
  ]);
  if (!ignored.ok) return;
  for (const entry of ignored.stdout.split("\0")) {
    // `--directory` names a wholly ignored folder with its trailing slash; files are left out.
    if (!entry.endsWith("/") || entry.slice(0, -1).includes("/")) continue;
    const name = entry.slice(0, -1);
    if (name === BATON_DIR || present(join(tree, name))) continue;
    symlinkSync(join(root, name), join(tree, name));
  }
}
