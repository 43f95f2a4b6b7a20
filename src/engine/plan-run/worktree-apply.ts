import { dirtyPaths, indexTree } from "./main-tree.js";
import { changedBetween, git, nulList, sortedUnique, why } from "./worktree-git.js";

export type ApplyPhaseResult =
  | { ok: true; files: string[] }
  | { ok: false; reason: "conflict" | "dirty" | "git"; files: string[]; message: string };

// Throwaway commit objects (never on a branch) must not depend on the user's identity being configured.
const SCRATCH_IDENTITY = {
  GIT_AUTHOR_NAME: "Baton",
  GIT_AUTHOR_EMAIL: "baton@localhost",
  GIT_COMMITTER_NAME: "Baton",
  GIT_COMMITTER_EMAIL: "baton@localhost",
};

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
type Step<T> = ({ ok: true } & T) | ApplyPhaseResult;

const gitFailure = (message: string, files: string[] = []): ApplyPhaseResult => ({
  ok: false,
  reason: "git",
  files,
  message,
});

/** The phase commit, its parent and the files it changes. */
async function resolveCommit(
  root: string,
  given: string,
): Promise<Step<{ sha: string; parent: string; files: string[] }>> {
  const commit = await git(root, [
    "rev-parse",
    "--verify",
    "--quiet",
    "--end-of-options",
    `${given}^{commit}`,
  ]);
  if (!commit.ok) return gitFailure(`${given} is not a commit`);
  const sha = commit.stdout.trim();
  const parentResult = await git(root, ["rev-parse", "--verify", "--quiet", `${sha}^1`]);
  if (!parentResult.ok) return gitFailure(`${sha} has no parent to diff against`);
  const parent = parentResult.stdout.trim();
  const phase = await changedBetween(root, parent, sha);
  if (!phase.ok) return gitFailure(phase.reason);
  return { ok: true, sha, parent, files: phase.files };
}

/** Refuses a main tree with unresolved conflicts, or with local changes to files the phase changes. */
async function mainTreeReady(
  root: string,
  files: string[],
  appliedFiles: string[] | undefined,
): Promise<ApplyPhaseResult | null> {
  const unmerged = await git(root, ["ls-files", "--unmerged", "-z"]);
  if (!unmerged.ok) return gitFailure(`git ls-files failed: ${why(unmerged)}`);
  const unresolved = sortedUnique(nulList(unmerged.stdout).map((line) => line.slice(line.indexOf("\t") + 1)));
  if (unresolved.length > 0) {
    const message = `the main tree has unresolved conflicts: ${unresolved.join(", ")}`;
    return { ok: false, reason: "dirty", files: unresolved, message };
  }
  const dirty = await dirtyPaths(root, files, appliedFiles);
  if (!dirty.ok) return gitFailure(dirty.reason);
  return dirty.files.length > 0 ? dirtyResult(dirty.files) : null;
}

/** The index tree merged three-way with the phase commit (merge base: its parent), without touching the tree. */
async function mergeWithIndex(
  root: string,
  parent: string,
  sha: string,
): Promise<Step<{ ours: string; merged: string }>> {
  const ours = await indexTree(root);
  if (!ours.ok) return gitFailure(ours.reason);
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
  if (!scratch.ok) return gitFailure(`git commit-tree failed: ${why(scratch)}`);
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
    const message = `the phase commit ${sha.slice(0, 12)} conflicts with the main tree in ${files.join(", ")}`;
    return { ok: false, reason: "conflict", files, message };
  }
  if (!merge.ok) return gitFailure(`git merge-tree failed: ${why(merge)}`);
  return { ok: true, ours: ours.tree, merged };
}

/** The merged tree put in place (`read-tree -m -u`), which touches only the paths that differ. */
async function putInPlace(
  root: string,
  phaseFiles: string[],
  ours: string,
  merged: string,
): Promise<ApplyPhaseResult> {
  const result = await changedBetween(root, ours, merged);
  if (!result.ok) return gitFailure(result.reason);
  if (result.files.length === 0) return { ok: true, files: [] };
  // Rename detection in the merge can move content to paths the phase itself did not name.
  const extra = result.files.filter((file) => !phaseFiles.includes(file));
  if (extra.length > 0) {
    const dirtyAfter = await dirtyPaths(root, extra, undefined);
    if (!dirtyAfter.ok) return gitFailure(dirtyAfter.reason);
    if (dirtyAfter.files.length > 0) return dirtyResult(dirtyAfter.files);
  }
  // Fresh stat data, else read-tree takes an unchanged but touched file for a modified one.
  await git(root, ["update-index", "-q", "--refresh"]);
  const apply = await git(root, ["read-tree", "-m", "-u", ours, merged]);
  if (!apply.ok) {
    const message = why(apply);
    // A refusal happens before anything is written; it means the tree changed since the checks above.
    if (/not uptodate|would be overwritten|would be lost|would be removed/i.test(message)) {
      return { ok: false, reason: "dirty", files: result.files, message };
    }
    return gitFailure(`git read-tree failed: ${message}`, result.files);
  }
  return { ok: true, files: result.files };
}

export async function applyPhaseCommit(opts: {
  root: string;
  sha: string;
  appliedFiles?: string[];
}): Promise<ApplyPhaseResult> {
  const top = await git(opts.root, ["rev-parse", "--show-toplevel"]);
  if (!top.ok) return gitFailure(`not a git work tree: ${why(top)}`);
  const root = top.stdout.trim();
  const phase = await resolveCommit(root, opts.sha);
  if (!phase.ok || !("sha" in phase)) return phase as ApplyPhaseResult;
  if (phase.files.length === 0) return { ok: true, files: [] };
  const refused = await mainTreeReady(root, phase.files, opts.appliedFiles);
  if (refused) return refused;
  const merge = await mergeWithIndex(root, phase.parent, phase.sha);
  if (!merge.ok || !("merged" in merge)) return merge as ApplyPhaseResult;
  return putInPlace(root, phase.files, merge.ours, merge.merged);
}

function dirtyResult(files: string[]): ApplyPhaseResult {
  return {
    ok: false,
    reason: "dirty",
    files,
    message: `uncommitted changes in the main tree to files the phase changed: ${files.join(", ")}`,
  };
}
