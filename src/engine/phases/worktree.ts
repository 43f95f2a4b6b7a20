import { copyFile, lstat, mkdtemp, readdir, realpath, rm, rmdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
// Not re-exported by shared/index.js on purpose: task commands load that barrel and never spawn.
import { runProcess } from "../../shared/process.js";

/**
 * Git worktrees for `baton implement N --isolate worktree`: every concurrent plan phase works in its own
 * checkout on its own branch, and its result comes back into the main working tree as staged changes,
 * phase by phase. Nothing here commits in the main tree.
 *
 * Layout: `<git common dir>/baton-worktrees/<sessionId>/phase-<id>` on branch `baton/<sessionId>/phase-<id>`.
 * The worktrees live inside the git directory, so the main tree's `git status` never sees them.
 */
export interface PhaseWorktree {
  /** Absolute path of the worktree's top directory. */
  path: string;
  /** Short branch name, `baton/<sessionId>/phase-<id>`. */
  branch: string;
  /** Commit sha the branch was created at. */
  base: string;
  phaseId: string;
  sessionId: string;
}

export type CreateWorktreeResult = { ok: true; worktree: PhaseWorktree } | { ok: false; reason: string };
export type WorktreeCommitResult =
  | { ok: true; sha: string | null; files: string[] }
  | { ok: false; reason: string };
export type ApplyPhaseResult =
  | { ok: true; files: string[] }
  | { ok: false; reason: "conflict" | "dirty" | "git"; files: string[]; message: string };

const WORKTREES_DIR = "baton-worktrees";
const BRANCH_PREFIX = "baton";
const TIMEOUT_MS = 120_000;
const OUTPUT_LIMIT = 64 * 1024 * 1024;
// Variables that point git at another repository, index or work tree; they would override `cwd`.
const REPO_ENV = [
  "GIT_DIR",
  "GIT_WORK_TREE",
  "GIT_INDEX_FILE",
  "GIT_COMMON_DIR",
  "GIT_OBJECT_DIRECTORY",
  "GIT_ALTERNATE_OBJECT_DIRECTORIES",
  "GIT_NAMESPACE",
  "GIT_PREFIX",
  "GIT_LITERAL_PATHSPECS",
  "GIT_GLOB_PATHSPECS",
  "GIT_NOGLOB_PATHSPECS",
  "GIT_ICASE_PATHSPECS",
];
// Throwaway commit objects (never on a branch) must not depend on the user's identity being configured.
const SCRATCH_IDENTITY = {
  GIT_AUTHOR_NAME: "Baton",
  GIT_AUTHOR_EMAIL: "baton@localhost",
  GIT_COMMITTER_NAME: "Baton",
  GIT_COMMITTER_EMAIL: "baton@localhost",
};

interface GitOptions {
  env?: Record<string, string>;
}

async function git(cwd: string, args: string[], options: GitOptions = {}) {
  const env: NodeJS.ProcessEnv = { ...process.env, GIT_TERMINAL_PROMPT: "0" };
  for (const name of REPO_ENV) delete env[name];
  const result = await runProcess({
    command: "git",
    args,
    cwd,
    env: { ...env, ...options.env },
    timeoutMs: TIMEOUT_MS,
    tailBytes: OUTPUT_LIMIT,
  });
  // File lists must arrive whole: a truncated one would silently skip files.
  if (result.ok && result.truncated.stdout) {
    return {
      ...result,
      ok: false as const,
      reason: "exit" as const,
      exitCode: null,
      message: "output too large",
    };
  }
  return result;
}

type GitResult = Awaited<ReturnType<typeof git>>;

function why(result: GitResult): string {
  if (result.ok) return "";
  return result.stderr.trim() || result.message;
}

/** `-z` output split into entries, the empty tail dropped. */
function nulList(text: string): string[] {
  return text.split("\0").filter((entry) => entry !== "");
}

/** Every pathspec literal: file names with `*`, `[` or `:` mean themselves. */
const LITERAL = { GIT_LITERAL_PATHSPECS: "1" };

function sortedUnique(paths: Iterable<string>): string[] {
  return [...new Set(paths)].sort();
}

function validId(id: string): boolean {
  return /^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(id) && !id.includes("..") && !id.endsWith(".lock");
}

function branchName(sessionId: string, phaseId: string): string {
  return `${BRANCH_PREFIX}/${sessionId}/phase-${phaseId}`;
}

async function commonDir(root: string): Promise<{ ok: true; dir: string } | { ok: false; reason: string }> {
  const result = await git(root, ["rev-parse", "--path-format=absolute", "--git-common-dir"]);
  if (!result.ok) return { ok: false, reason: `not a git repository: ${why(result)}` };
  return { ok: true, dir: result.stdout.trim() };
}

function sessionDir(common: string, sessionId: string): string {
  return join(common, WORKTREES_DIR, sessionId);
}

async function canonical(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch {
    return resolve(path);
  }
}

function inside(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel);
}

async function exists(path: string): Promise<boolean> {
  return (await onDisk(path)) !== null;
}

/**
 * What occupies `path` on disk: the path itself, the file standing where one of its leading directories
 * should be, or null when nothing is in the way.
 */
async function onDisk(path: string): Promise<string | null> {
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

export async function headSha(root: string): Promise<string> {
  const result = await git(root, ["rev-parse", "--verify", "--quiet", "HEAD^{commit}"]);
  if (!result.ok) throw new Error(`cannot resolve HEAD in ${root}: ${why(result) || "no commit yet"}`);
  return result.stdout.trim();
}

/** Worktree dir: <git common dir>/baton-worktrees/<sessionId>/phase-<id>; branch: baton/<sessionId>/phase-<id> created at `base`. */
export async function createPhaseWorktree(opts: {
  root: string;
  sessionId: string;
  phaseId: string;
  base: string;
}): Promise<CreateWorktreeResult> {
  const { root, sessionId, phaseId } = opts;
  if (!validId(sessionId))
    return { ok: false, reason: `invalid session id for a branch name: "${sessionId}"` };
  if (!validId(phaseId)) return { ok: false, reason: `invalid phase id for a branch name: "${phaseId}"` };
  const common = await commonDir(root);
  if (!common.ok) return common;
  const base = await git(root, [
    "rev-parse",
    "--verify",
    "--quiet",
    "--end-of-options",
    `${opts.base}^{commit}`,
  ]);
  if (!base.ok) return { ok: false, reason: `base "${opts.base}" is not a commit` };
  const sha = base.stdout.trim();
  const branch = branchName(sessionId, phaseId);
  const format = await git(root, ["check-ref-format", "--branch", branch]);
  if (!format.ok) return { ok: false, reason: `invalid branch name ${branch}` };
  const taken = await git(root, ["rev-parse", "--verify", "--quiet", `refs/heads/${branch}`]);
  if (taken.ok) {
    return {
      ok: false,
      reason: `branch ${branch} already exists (left by an earlier run? prune the session)`,
    };
  }
  const path = join(sessionDir(common.dir, sessionId), `phase-${phaseId}`);
  if (await exists(path)) return { ok: false, reason: `worktree directory ${path} already exists` };
  const add = await git(root, ["worktree", "add", "--quiet", "-b", branch, path, sha]);
  if (!add.ok) {
    // A half-made worktree must not block the next attempt.
    await git(root, ["worktree", "remove", "--force", "--force", path]);
    await git(root, ["worktree", "prune"]);
    await rm(path, { recursive: true, force: true });
    await git(root, ["branch", "-D", branch]);
    return { ok: false, reason: `git worktree add failed: ${why(add)}` };
  }
  return { ok: true, worktree: { path, branch, base: sha, phaseId, sessionId } };
}

/**
 * Stage everything in the worktree (git add --all) except `exclude` (repo-relative paths or globs with
 * `:(glob)` pathspec rules, e.g. "specs/state.json", "specs/1_x/.return-meta*.json"; a directory excludes
 * everything below it), commit with `message`. Commits the agent made itself on the branch are folded
 * into this one commit on top of `base`, so the phase is always exactly one commit. Nothing to commit →
 * sha null. Hooks (pre-commit, commit-msg) and signing are skipped: this commit only carries the work.
 */
export async function commitInWorktree(
  wt: PhaseWorktree,
  opts: { message: string; exclude: string[] },
): Promise<WorktreeCommitResult> {
  const cwd = wt.path;
  const head = await git(cwd, ["symbolic-ref", "--quiet", "HEAD"]);
  if (!head.ok || head.stdout.trim() !== `refs/heads/${wt.branch}`) {
    return { ok: false, reason: `worktree ${cwd} is not on branch ${wt.branch}` };
  }
  const tip = await git(cwd, ["rev-parse", "--verify", "HEAD"]);
  if (!tip.ok) return { ok: false, reason: `git rev-parse failed: ${why(tip)}` };
  if (tip.stdout.trim() !== wt.base) {
    const descends = await git(cwd, ["merge-base", "--is-ancestor", wt.base, "HEAD"]);
    if (!descends.ok) return { ok: false, reason: `branch ${wt.branch} no longer descends from ${wt.base}` };
    const squash = await git(cwd, ["reset", "--soft", "--quiet", wt.base]);
    if (!squash.ok) return { ok: false, reason: `git reset --soft failed: ${why(squash)}` };
  }
  const excludes = opts.exclude.map((pattern) => `:(exclude,glob)${pattern}`);
  const add = await git(cwd, ["add", "--all", "--", ".", ...excludes]);
  if (!add.ok) return { ok: false, reason: `git add failed: ${why(add)}` };
  if (opts.exclude.length > 0) {
    // Excluded files staged earlier (by the agent or by folded commits) go back to their base version.
    const patterns = opts.exclude.map((pattern) => `:(glob)${pattern}`);
    const unstage = await git(cwd, ["reset", "--quiet", wt.base, "--", ...patterns]);
    if (!unstage.ok) return { ok: false, reason: `git reset of excluded files failed: ${why(unstage)}` };
  }
  const staged = await git(cwd, ["diff", "--cached", "--quiet", wt.base]);
  if (staged.ok) return { ok: true, sha: null, files: [] };
  if (staged.exitCode !== 1) return { ok: false, reason: `git diff failed: ${why(staged)}` };
  const commit = await git(cwd, [
    "-c",
    "commit.gpgSign=false",
    "commit",
    "--quiet",
    "--no-verify",
    "--allow-empty-message",
    "-m",
    opts.message,
  ]);
  if (!commit.ok) return { ok: false, reason: `git commit failed: ${why(commit)}` };
  const sha = await git(cwd, ["rev-parse", "--verify", "HEAD"]);
  if (!sha.ok) return { ok: false, reason: `git rev-parse failed: ${why(sha)}` };
  const files = await changedBetween(cwd, wt.base, sha.stdout.trim());
  if (!files.ok) return { ok: false, reason: files.reason };
  return { ok: true, sha: sha.stdout.trim(), files: files.files };
}

async function changedBetween(
  cwd: string,
  from: string,
  to: string,
): Promise<{ ok: true; files: string[] } | { ok: false; reason: string }> {
  const diff = await git(cwd, ["diff-tree", "-r", "-z", "--no-renames", "--name-only", from, to]);
  if (!diff.ok) return { ok: false, reason: `git diff-tree failed: ${why(diff)}` };
  return { ok: true, files: sortedUnique(nulList(diff.stdout)) };
}

/**
 * Apply a phase commit to the main working tree without committing; its changes end up staged.
 *
 * How it stays safe: everything is decided before the main tree is touched. The current index is written
 * as a tree (from a copy of the index file, so the real one is not even rewritten), merged three-way with
 * the phase commit by `git merge-tree` (merge base: the phase commit's parent, as cherry-pick does), and
 * only a clean result is put in place with `git read-tree -m -u <index tree> <merged tree>`: the two-tree
 * form `git checkout` uses, which changes only the paths that differ between the two trees and refuses
 * (touching nothing) if one of them has local changes or an untracked file is in the way.
 *
 * What is "dirty": a file the phase changes that has unstaged changes, is unmerged, or exists untracked
 * (or ignored) in the main tree. Staged changes count as the current state the phase is merged onto
 * (earlier phases applied this run are staged); pass `appliedFiles` (the files earlier applies staged)
 * and staged changes to any other file the phase changes count as dirty too.
 *
 * Callers apply one phase at a time; the index and working tree must not be changed meanwhile.
 */
export async function applyPhaseCommit(opts: {
  root: string;
  sha: string;
  appliedFiles?: string[];
}): Promise<ApplyPhaseResult> {
  const fail = (message: string, files: string[] = []): ApplyPhaseResult => ({
    ok: false,
    reason: "git",
    files,
    message,
  });
  const top = await git(opts.root, ["rev-parse", "--show-toplevel"]);
  if (!top.ok) return fail(`not a git work tree: ${why(top)}`);
  const root = top.stdout.trim();

  const commit = await git(root, [
    "rev-parse",
    "--verify",
    "--quiet",
    "--end-of-options",
    `${opts.sha}^{commit}`,
  ]);
  if (!commit.ok) return fail(`${opts.sha} is not a commit`);
  const sha = commit.stdout.trim();
  const parentResult = await git(root, ["rev-parse", "--verify", "--quiet", `${sha}^1`]);
  if (!parentResult.ok) return fail(`${sha} has no parent to diff against`);
  const parent = parentResult.stdout.trim();
  const phase = await changedBetween(root, parent, sha);
  if (!phase.ok) return fail(phase.reason);
  if (phase.files.length === 0) return { ok: true, files: [] };

  const unmerged = await git(root, ["ls-files", "--unmerged", "-z"]);
  if (!unmerged.ok) return fail(`git ls-files failed: ${why(unmerged)}`);
  const unresolved = sortedUnique(nulList(unmerged.stdout).map((line) => line.slice(line.indexOf("\t") + 1)));
  if (unresolved.length > 0) {
    return {
      ok: false,
      reason: "dirty",
      files: unresolved,
      message: `the main tree has unresolved conflicts: ${unresolved.join(", ")}`,
    };
  }

  const dirtyBefore = await dirtyPaths(root, phase.files, opts.appliedFiles);
  if (!dirtyBefore.ok) return fail(dirtyBefore.reason);
  if (dirtyBefore.files.length > 0) return dirtyResult(dirtyBefore.files);

  const ours = await indexTree(root);
  if (!ours.ok) return fail(ours.reason);
  // merge-tree in git 2.39 has no --merge-base: a scratch commit of the index tree on top of the phase's
  // parent makes that parent the merge base, which gives cherry-pick semantics.
  const scratch = await git(
    root,
    [
      "commit-tree",
      "--no-gpg-sign",
      ours.tree,
      "-p",
      parent,
      "-m",
      "baton: main tree before applying a phase",
    ],
    { env: SCRATCH_IDENTITY },
  );
  if (!scratch.ok) return fail(`git commit-tree failed: ${why(scratch)}`);
  const merge = await git(root, [
    "merge-tree",
    "--write-tree",
    "-z",
    "--name-only",
    "--no-messages",
    scratch.stdout.trim(),
    sha,
  ]);
  const [merged = "", ...conflictInfo] = merge.stdout.split("\0");
  if (!merge.ok && merge.exitCode === 1 && /^[0-9a-f]{40,64}$/.test(merged)) {
    const files = sortedUnique(conflictInfo.filter((entry) => entry !== ""));
    return {
      ok: false,
      reason: "conflict",
      files,
      message: `the phase commit ${sha.slice(0, 12)} conflicts with the main tree in ${files.join(", ")}`,
    };
  }
  if (!merge.ok) return fail(`git merge-tree failed: ${why(merge)}`);

  const result = await changedBetween(root, ours.tree, merged);
  if (!result.ok) return fail(result.reason);
  if (result.files.length === 0) return { ok: true, files: [] };
  // Rename detection in the merge can move content to paths the phase itself did not name.
  const extra = result.files.filter((file) => !phase.files.includes(file));
  if (extra.length > 0) {
    const dirtyAfter = await dirtyPaths(root, extra, undefined);
    if (!dirtyAfter.ok) return fail(dirtyAfter.reason);
    if (dirtyAfter.files.length > 0) return dirtyResult(dirtyAfter.files);
  }

  // Fresh stat data, else read-tree takes an unchanged but touched file for a modified one.
  await git(root, ["update-index", "-q", "--refresh"]);
  const apply = await git(root, ["read-tree", "-m", "-u", ours.tree, merged]);
  if (!apply.ok) {
    const message = why(apply);
    // A refusal happens before anything is written; it means the tree changed since the checks above.
    if (/not uptodate|would be overwritten|would be lost|would be removed/i.test(message)) {
      return { ok: false, reason: "dirty", files: result.files, message };
    }
    return fail(`git read-tree failed: ${message}`, result.files);
  }
  return { ok: true, files: result.files };
}

function dirtyResult(files: string[]): ApplyPhaseResult {
  return {
    ok: false,
    reason: "dirty",
    files,
    message: `uncommitted changes in the main tree to files the phase changed: ${files.join(", ")}`,
  };
}

/** Paths among `paths` that applying must not overwrite: see applyPhaseCommit. */
async function dirtyPaths(
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
  for (const entry of nulList(status.stdout)) {
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
      dirty.add(path);
    } else if (y !== " ") {
      dirty.add(path);
    } else if (applied !== null && x !== " " && !applied.has(path)) {
      dirty.add(path);
    }
  }
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
    if (blocker === path) dirty.add(path);
    else blockers.set(path, blocker);
  }
  // A file where the phase needs a directory is in the way only if git does not track it (a tracked one
  // is either removed by the phase or makes the merge conflict).
  if (blockers.size > 0) {
    const known = await git(root, ["ls-files", "-z", "--", ...new Set(blockers.values())], { env: LITERAL });
    if (!known.ok) return { ok: false, reason: `git ls-files failed: ${why(known)}` };
    const trackedBlockers = new Set(nulList(known.stdout));
    for (const [path, blocker] of blockers) if (!trackedBlockers.has(blocker)) dirty.add(path);
  }
  return { ok: true, files: sortedUnique(dirty) };
}

/** The tree of the current index, written from a copy so the real index file is left byte for byte. */
async function indexTree(root: string): Promise<{ ok: true; tree: string } | { ok: false; reason: string }> {
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

/** Remove the worktree directory and its registration; delete the branch unless keepBranch (kept when its commit could not be applied, so nothing is lost). */
export async function removePhaseWorktree(
  root: string,
  wt: PhaseWorktree,
  opts: { keepBranch: boolean },
): Promise<void> {
  await removeWorktreeDir(root, wt.path);
  if (!opts.keepBranch && wt.branch.startsWith(`${BRANCH_PREFIX}/`)) {
    await git(root, ["branch", "-D", "--quiet", wt.branch]);
  }
  const common = await commonDir(root);
  if (common.ok) await removeIfEmpty(sessionDir(common.dir, wt.sessionId));
}

async function removeWorktreeDir(root: string, path: string): Promise<void> {
  await git(root, ["worktree", "remove", "--force", "--force", path]);
  // Registration whose directory is gone (or a directory git no longer knew about).
  const common = await commonDir(root);
  if (common.ok && inside(join(common.dir, WORKTREES_DIR), resolve(path))) {
    await rm(path, { recursive: true, force: true });
  }
  await git(root, ["worktree", "prune"]);
}

async function removeIfEmpty(dir: string): Promise<void> {
  try {
    await rmdir(dir);
    await rmdir(dirname(dir));
  } catch {
    // Not empty, or already gone.
  }
}

/**
 * After a crash: remove every worktree of a session (registered or only left on disk) and its branches,
 * except branches whose work is not in HEAD (the files the branch changed since it forked do not all have
 * the branch's content in HEAD); those are kept so nothing is lost.
 */
export async function prunePhaseWorktrees(
  root: string,
  sessionId: string,
): Promise<{ removed: string[]; keptBranches: string[] }> {
  const removed: string[] = [];
  const keptBranches: string[] = [];
  if (!validId(sessionId)) return { removed, keptBranches };
  const common = await commonDir(root);
  if (!common.ok) return { removed, keptBranches };
  const dir = sessionDir(common.dir, sessionId);
  const canonicalDir = await canonical(dir);
  const branchPrefix = `refs/heads/${BRANCH_PREFIX}/${sessionId}/`;

  const list = await git(root, ["worktree", "list", "--porcelain", "-z"]);
  const paths = new Set<string>();
  if (list.ok) {
    // Records of `key value` fields, each record ended by an empty field.
    let path: string | null = null;
    let branch: string | null = null;
    for (const field of list.stdout.split("\0")) {
      if (field.startsWith("worktree ")) path = field.slice("worktree ".length);
      else if (field.startsWith("branch ")) branch = field.slice("branch ".length);
      else if (field === "" && path !== null) {
        const ours = branch?.startsWith(branchPrefix) || inside(canonicalDir, await canonical(path));
        if (ours) paths.add(path);
        path = null;
        branch = null;
      }
    }
  }
  try {
    for (const entry of await readdir(dir)) paths.add(join(dir, entry));
  } catch {
    // No directory left for this session.
  }
  const canonicalPaths = new Map<string, string>();
  for (const path of paths) canonicalPaths.set(await canonical(path), path);
  for (const path of canonicalPaths.values()) {
    await removeWorktreeDir(root, path);
    removed.push(path);
  }
  await git(root, ["worktree", "prune"]);
  await removeIfEmpty(dir);

  const refs = await git(root, ["for-each-ref", "--format=%(refname)", branchPrefix]);
  const branches = refs.ok ? refs.stdout.split("\n").filter((ref) => ref !== "") : [];
  for (const ref of branches) {
    const branch = ref.slice("refs/heads/".length);
    if (await branchInHead(root, ref)) await git(root, ["branch", "-D", "--quiet", branch]);
    else keptBranches.push(branch);
  }
  return { removed: removed.sort(), keptBranches: keptBranches.sort() };
}

/** True when HEAD holds everything the branch changed since it forked (or the branch changed nothing). */
async function branchInHead(root: string, ref: string): Promise<boolean> {
  const ancestor = await git(root, ["merge-base", "--is-ancestor", ref, "HEAD"]);
  if (ancestor.ok) return true;
  const fork = await git(root, ["merge-base", "HEAD", ref]);
  if (!fork.ok) return false;
  const changed = await changedBetween(root, fork.stdout.trim(), ref);
  if (!changed.ok) return false;
  if (changed.files.length === 0) return true;
  const same = await git(root, ["diff-tree", "--quiet", "-r", ref, "HEAD", "--", ...changed.files], {
    env: LITERAL,
  });
  return same.ok;
}
