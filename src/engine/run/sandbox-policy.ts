import { mkdirSync, readFileSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import type { SandboxPolicy } from "../../runners/index.js";
import {
  BATON_DIR,
  batonKeyDir,
  batonPaths,
  CONFIG_FILE_NAMES,
  HOST_SETTINGS_FILES,
  MARKER_FILE,
} from "../../shared/baton-paths.js";
import { runGit } from "../../shared/git.js";
import { hostHookScripts } from "../../shared/host-hook-scripts.js";
import { present } from "../../shared/present.js";
import type { SpecsPaths } from "../../state/index.js";
import type { Run } from "./prepare-run.js";

/**
 * What no agent of this run may change, repository-relative: the task store (state, TODO, errors, the
 * archive, its internal folder), Baton's folder and configuration, the hosts' hook settings, and the
 * run's postflight marker.
 */
export function protectedPaths(run: Run): string[] {
  return [
    ...repositoryProtectedPaths(run.config.root, run.ctx.paths),
    relative(run.config.root, join(run.folder, MARKER_FILE)),
  ];
}

/**
 * What no process running the project's code may change, whatever the run: the store, Baton's files, the hosts'
 * settings and the scripts their hooks run.
 */
export function repositoryProtectedPaths(root: string, paths: SpecsPaths): string[] {
  const store = [paths.state, paths.todo, paths.errors, paths.archiveDir, paths.internalDir];
  return [
    ...store.map((p) => relative(root, p)),
    BATON_DIR,
    ...CONFIG_FILE_NAMES,
    ...HOST_SETTINGS_FILES,
    ...hostHookScripts(root),
  ];
}

/** Folders no agent of this run may add entries to or replace entries in, repository-relative: the store's. */
export function frozenFolders(run: Run): string[] {
  const store = relative(run.config.root, run.ctx.paths.dir);
  // A store that is the repository itself, or outside it, is left to its files' own binds.
  return store === "" || store.startsWith("..") || isAbsolute(store) ? [] : [store];
}

/**
 * The git directories of a work tree: its own (a worktree's lives inside the main one) and the common one.
 * Read from `.git` as git reads it when that is the whole story (a folder, or a file naming the git dir,
 * with `commondir` beside it for a worktree): starting git cost 16 ms per agent start. Anything else (git's
 * own variables set, no `.git` here) asks git.
 */
async function gitDirs(workRoot: string): Promise<string[]> {
  const dotGit = join(workRoot, ".git");
  // A worktree's `.git` is a file naming its git dir: bound read-only as well, so it cannot be pointed elsewhere.
  const read = process.env["GIT_DIR"] || process.env["GIT_COMMON_DIR"] ? null : gitDirsFromFiles(dotGit);
  if (read) return [...read, dotGit];
  const dirs = await runGit(workRoot, [
    "rev-parse",
    "--path-format=absolute",
    "--git-dir",
    "--git-common-dir",
  ]);
  if (!dirs.ok) return [];
  return [...dirs.stdout.split("\n").filter((d) => d !== ""), dotGit];
}

function gitDirsFromFiles(dotGit: string): string[] | null {
  try {
    if (statSync(dotGit).isDirectory()) return [dotGit];
    const named = /^gitdir: (.+)$/m.exec(readFileSync(dotGit, "utf8"))?.[1]?.trim();
    if (!named) return null;
    const gitDir = resolve(dirname(dotGit), named);
    const common = join(gitDir, "commondir");
    return present(common) ? [gitDir, resolve(gitDir, readFileSync(common, "utf8").trim())] : [gitDir];
  } catch {
    return null;
  }
}

/**
 * The sandbox of an agent working in `workRoot` (the repository, a phase's worktree, a worker's tree):
 * git history and the protected paths read-only, in the repository and in the work tree alike, the
 * frozen folders' own entries fixed, and Baton's keys not there at all. Inside a frozen folder the agent
 * works only in the folder that holds a protected path deeper in it (the run's task folder, with its
 * marker), made if missing; other tasks' folders are read-only to it.
 */
export async function sandboxPolicy(
  root: string,
  protectedRelative: readonly string[],
  workRoot: string = root,
  secrets: readonly string[] = [],
  frozenRelative: readonly string[] = [],
): Promise<SandboxPolicy> {
  const roots = workRoot === root ? [root] : [root, workRoot];
  const readOnly = [
    ...(await gitDirs(root)),
    ...(workRoot === root ? [] : await gitDirs(workRoot)),
    ...roots.flatMap((r) => protectedRelative.map((p) => join(r, p))),
  ];
  // A phase's worktree lives inside git's common folder: writable for its agent, its own git files not.
  const writable = workRoot === root ? [] : [workRoot];
  const entries = frozenRelative.flatMap((folder) =>
    protectedRelative
      .filter((p) => p.startsWith(`${folder}/`) && dirname(p) !== folder)
      .map((p) => join(folder, p.slice(folder.length + 1).split("/")[0]!)),
  );
  return {
    workTrees: roots,
    readOnly,
    writable,
    frozen: roots.flatMap((r) => frozenRelative.map((f) => join(r, f))),
    workFolders: roots.flatMap((r) => entries.map((e) => join(r, e))),
    hidden: [batonKeyDir(), ...secrets],
    protect: protectedRelative,
    protectFolders: frozenRelative,
  };
}

/** The sandbox of an agent of this run, or none when the run was told `--sandbox off`. */
export async function runSandbox(run: Run, workRoot?: string): Promise<SandboxPolicy | undefined> {
  if (run.config.sandbox === "off") return undefined;
  // Holdout checks' folders are as secret as the key: the agent must never read the tests that judge it.
  const holdouts = run.config.checks.flatMap((c) => (c.holdout === null ? [] : [c.holdout]));
  // Where a holdout check's copy appears while it runs: made now, so the agent's sandbox can hide it.
  const copies = batonPaths(run.config.root).holdoutDir;
  mkdirSync(copies, { recursive: true });
  return sandboxPolicy(
    run.config.root,
    protectedPaths(run),
    workRoot,
    [...holdouts, copies],
    frozenFolders(run),
  );
}
