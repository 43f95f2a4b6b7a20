import { copyFile, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative, sep } from "node:path";
import { changedBetween, git, LITERAL, nulList, onDisk, sortedUnique, why } from "./worktree-git.js";

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
