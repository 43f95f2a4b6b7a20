import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { BATON_DIR } from "../../shared/baton-paths.js";
import { runGit, runGitWorktree } from "../../shared/git.js";
import { present } from "../../shared/present.js";

/**
 * A clean checkout of one commit, beside the repository, for running its checks as that commit has them:
 * a detached worktree, with the repository's installed dependencies linked in (an ignored top-level
 * `node_modules`, a virtualenv — a folder with its `pyvenv.cfg` — or a PHP/Ruby `vendor` with its
 * autoloader), and nothing else of the work tree: no build output, no ignored file the commit does not
 * carry. `use` is told which folders were linked, as the result depends on them. Removed afterwards; null
 * when git cannot make it.
 */
export async function withScratchTree<T>(
  root: string,
  commit: string,
  use: (tree: string, linked: string[]) => Promise<T>,
  folders?: readonly string[],
): Promise<T | null> {
  const tree = join(mkdtempSync(join(tmpdir(), "baton-scratch-")), "tree");
  const added = await runGitWorktree(root, ["add", "--detach", "--quiet", tree, commit]);
  if (!added.ok) {
    rmSync(dirname(tree), { recursive: true, force: true });
    return null;
  }
  try {
    return await use(tree, linkDependencyFolders(root, tree, folders ?? (await dependencyFolders(root))));
  } finally {
    await runGitWorktree(root, ["remove", "--force", tree]);
    rmSync(dirname(tree), { recursive: true, force: true });
  }
}

/** What an installer made, known by what the language's own loader looks for, not by a list of build folders. */
function isDependencyFolder(path: string, name: string): boolean {
  if (name === "node_modules") return true;
  if (present(join(path, "pyvenv.cfg"))) return true;
  return name === "vendor" && (present(join(path, "autoload.php")) || present(join(path, "bundle")));
}

/** The repository's installed dependency folders: ignored, at its top, made by an installer. */
export async function dependencyFolders(root: string): Promise<string[]> {
  const ignored = await runGit(root, [
    "ls-files",
    "--others",
    "--ignored",
    "--exclude-standard",
    "--directory",
    "-z",
  ]);
  if (!ignored.ok) return [];
  const folders: string[] = [];
  for (const entry of ignored.stdout.split("\0")) {
    // `--directory` names a wholly ignored folder with its trailing slash; files are left out.
    if (!entry.endsWith("/") || entry.slice(0, -1).includes("/")) continue;
    const name = entry.slice(0, -1);
    if (name !== BATON_DIR && isDependencyFolder(join(root, name), name)) folders.push(name);
  }
  return folders;
}

function linkDependencyFolders(root: string, tree: string, folders: readonly string[]): string[] {
  const linked: string[] = [];
  for (const name of folders) {
    if (present(join(tree, name))) continue;
    symlinkSync(join(root, name), join(tree, name));
    linked.push(name);
  }
  return linked;
}
