import { readdir, rm, rmdir } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { readHeadRef, runGitWorktree } from "../../shared/git.js";
import { sealedCommit } from "../commit/index.js";
import { canonical, changedBetween, exists, git, inside, LITERAL, why } from "./worktree-git.js";

export { type ApplyPhaseResult, applyPhaseCommit } from "./worktree-apply.js";

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

const WORKTREES_DIR = "baton-worktrees";
const BRANCH_PREFIX = "baton";

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
  const add = await runGitWorktree(root, ["add", "--quiet", "-b", branch, path, sha]);
  if (!add.ok) {
    // A half-made worktree must not block the next attempt.
    await runGitWorktree(root, ["remove", "--force", "--force", path]);
    await runGitWorktree(root, ["prune"]);
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
 * sha null. Hooks and the user's signing are skipped (this commit only carries the work); Baton seals it.
 */
export async function commitInWorktree(
  wt: PhaseWorktree,
  opts: { message: string; exclude: string[] },
): Promise<WorktreeCommitResult> {
  const cwd = wt.path;
  const head = await readHeadRef(cwd);
  if (!head.ok) return { ok: false, reason: head.message };
  if (head.ref !== `refs/heads/${wt.branch}`) {
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
  const commit = await sealedCommit(cwd, {}, opts.message, [wt.base], wt.base, false);
  if (!commit.ok) return { ok: false, reason: commit.reason };
  const files = await changedBetween(cwd, wt.base, commit.sha);
  if (!files.ok) return { ok: false, reason: files.reason };
  return { ok: true, sha: commit.sha, files: files.files };
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

/**
 * A phase branch whose work came back and was committed: deleted only then, so a run killed between the
 * apply and its commit leaves recovery the branch that says which staged changes were the phase's.
 */
export async function deletePhaseBranch(root: string, branch: string): Promise<void> {
  if (branch.startsWith(`${BRANCH_PREFIX}/`)) await git(root, ["branch", "-D", "--quiet", branch]);
}

async function removeWorktreeDir(root: string, path: string): Promise<void> {
  await runGitWorktree(root, ["remove", "--force", "--force", path]);
  // Registration whose directory is gone (or a directory git no longer knew about).
  const common = await commonDir(root);
  if (common.ok && inside(join(common.dir, WORKTREES_DIR), resolve(path))) {
    await rm(path, { recursive: true, force: true });
  }
  await runGitWorktree(root, ["prune"]);
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
  await runGitWorktree(root, ["prune"]);
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
