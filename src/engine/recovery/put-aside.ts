import { readdirSync, rmdirSync, rmSync } from "node:fs";
import { basename, dirname, join, relative, resolve } from "node:path";
import { BATON_DIR } from "../../shared/baton-paths.js";
import { runGit } from "../../shared/git.js";
import {
  isCheckpointProcessAlive,
  type OpenCheckpoint,
  openCheckpointNumbers,
  readOpenCheckpoint,
  type StoreContext,
} from "../../state/index.js";
import type { JournalRecord } from "../run/index.js";
import { changedSince, isControlFile } from "../run/index.js";

/** What a rolled-back run's agent left in the shared tree, and where it went. */
export interface PutAside {
  /** The branch holding the dead run's changes (one commit on HEAD); null when there were none. */
  branch: string | null;
  /** The files put back to HEAD (or removed, when HEAD has none) after being saved on the branch. */
  files: string[];
  /** Files that were already changed before the run began and that it changed again: left as they are. */
  kept: string[];
  /** Why nothing was put aside although the run may have left changes. */
  skipped?: string;
}

/**
 * The branch a task's dead runs' unrecorded changes are saved on: one per task, each put-aside a commit on
 * HEAD whose second parent is the one before, so repeated kills never pile up branches and nothing is lost.
 */
export function leftoversBranch(taskNumber: number): string {
  return `baton/leftovers/task-${taskNumber}`;
}

/**
 * Puts aside what a dead plan run's phase agents wrote in the shared tree and never recorded, so the re-run
 * starts from the tree the dead run started from: a re-run that isolates its phases in worktrees would
 * otherwise be refused by its own predecessor's files (MERGE_REFUSED), and a re-run in the shared tree would
 * commit only what it changed again, leaving the rest uncommitted under a completed task.
 *
 * Nothing is lost: the changes are first committed (a commit on HEAD, never on a checked-out branch) to
 * `baton/leftovers/task-<N>`, then each file goes back to HEAD's version, or is removed when HEAD has none.
 * Only files that were clean when the run began are touched; a file the person had changed before it began
 * is theirs and kept. A live session's tree is the person's too, and a worktree-isolated run's agents never
 * wrote the shared tree: neither is touched. Another run alive on this repository may be writing the tree
 * right now, so then nothing is touched either. Call with the store's lock held, so no run starts meanwhile.
 */
export async function putAsideDeadOutput(
  ctx: StoreContext,
  checkpoint: OpenCheckpoint,
  records: readonly JournalRecord[],
  scope: DeadRunScope,
): Promise<PutAside> {
  const root = ctx.config.root;
  const branch = leftoversBranch(checkpoint.taskNumber);
  const tip = await branchTip(root, branch);
  // A recover killed after its put-aside runs again: the branch already holds this session's changes.
  const earlier = tip?.session === checkpoint.sessionId ? branch : null;
  const none = (skipped?: string): PutAside => ({
    branch: earlier,
    files: [],
    kept: [],
    ...(skipped ? { skipped } : {}),
  });
  const baseline = checkpoint.baseline;
  if (checkpoint.mode === "session" || !baseline || baseline.commit === null) return none();
  // Only a plan run's phases ran in the shared tree with the tree theirs (each phase commits what changed);
  // an operation's draft in its folder is kept for its re-run, and a worktree run never wrote the shared tree.
  const phases = records.filter((r) => r.step === "PHASE" && r.phase === "begin");
  if (phases.length === 0 || phases.some((r) => r.detail?.["worktree"] === true)) return none();
  const ours = deadRunPaths(ctx, scope);
  const changed = await differingFromHead(root, await changedSince(root, baseline, (p) => !ours(p)));
  if (changed.length === 0) return none();
  const live = otherLiveRun(ctx, checkpoint.taskNumber);
  if (live !== null) return none(`task ${live}'s run is working in this tree; the changes are kept`);
  const kept = changed.filter((path) => Object.hasOwn(baseline.dirty, path));
  const files = changed.filter((path) => !Object.hasOwn(baseline.dirty, path));
  if (files.length === 0) return { ...none(), kept };
  const saved = await saveOnBranch(root, { branch, previous: tip?.sha ?? null }, files, checkpoint);
  if (!saved.ok) return { ...none(`saving them failed (${saved.reason}); the changes are kept`), kept };
  await restoreFromHead(root, files);
  return { branch, files, kept };
}

/** Where the dead run wrote what it never recorded: its task folder and everything outside the store. */
export interface DeadRunScope {
  /** The task folder (absolute); null when the task is gone. */
  folder: string | null;
  /** Absolute paths Baton restores itself in the same recovery (the plan whose markers go back). */
  keep: readonly string[];
}

/**
 * The paths a dead run may have written and not recorded: outside the task store, and in its own task folder
 * (a phase summary, a half-written report or plan); never Baton's folder, the store's files, a control file.
 */
function deadRunPaths(ctx: StoreContext, scope: DeadRunScope): (path: string) => boolean {
  const root = ctx.config.root;
  const inside = (dir: string, path: string) => path === dir || path.startsWith(`${dir}/`);
  const store = relative(root, ctx.paths.dir);
  const internal = relative(root, ctx.paths.internalDir);
  const folder = scope.folder === null ? null : relative(root, scope.folder);
  const keep = new Set(scope.keep.map((p) => relative(root, p)));
  return (path) => {
    if (isControlFile(basename(path)) || keep.has(path)) return false;
    if (inside(BATON_DIR, path) || inside(internal, path)) return false;
    return !inside(store, path) || (folder !== null && inside(folder, path));
  };
}

/**
 * The trailer naming the dead session: not `Session:`, which is the mark of Baton's own sealed commits — a
 * person who merges the branch must not bring in a commit that looks like a forged one.
 */
const LEFTOVERS_OF = "Baton-Leftovers-Of:";

/** The branch's commit and the session its message names; null when there is no such branch. */
async function branchTip(
  root: string,
  branch: string,
): Promise<{ sha: string; session: string | null } | null> {
  const shown = await runGit(root, ["log", "-1", "--format=%H%x00%B", `refs/heads/${branch}`, "--"]);
  if (!shown.ok) return null;
  const [sha = "", message = ""] = shown.stdout.split("\0");
  const line = message.split("\n").find((l) => l.startsWith(`${LEFTOVERS_OF} `));
  return { sha: sha.trim(), session: line?.slice(LEFTOVERS_OF.length + 1).trim() ?? null };
}

/** Of `paths`, those whose file (or its absence) differs from HEAD: what the phase commits did not take. */
async function differingFromHead(root: string, paths: readonly string[]): Promise<string[]> {
  if (paths.length === 0) return [];
  const diff = await runGit(root, [
    "diff",
    "--name-only",
    "-z",
    "--no-renames",
    "HEAD",
    "--",
    ...paths.map((p) => `:(literal)${p}`),
  ]);
  const tracked = diff.ok ? new Set(diff.stdout.split("\0").filter(Boolean)) : new Set(paths);
  const untracked = await runGit(root, [
    "ls-files",
    "--others",
    "--exclude-standard",
    "-z",
    "--",
    ...paths.map((p) => `:(literal)${p}`),
  ]);
  for (const path of untracked.ok ? untracked.stdout.split("\0") : []) if (path) tracked.add(path);
  return paths.filter((p) => tracked.has(p));
}

/** A run (not this task's dead one) whose process is alive or cannot be told dead, by task number. */
function otherLiveRun(ctx: StoreContext, taskNumber: number): number | null {
  for (const n of openCheckpointNumbers(ctx.paths.internalDir)) {
    if (n === taskNumber) continue;
    const open = readOpenCheckpoint(ctx.paths.internalDir, n);
    if (open && (open.mode === "session" || isCheckpointProcessAlive(open) !== false)) return n;
  }
  return null;
}

/** The files as they are now, committed on top of HEAD through an index of its own, onto `branch`. */
async function saveOnBranch(
  root: string,
  { branch, previous }: { branch: string; previous: string | null },
  files: readonly string[],
  checkpoint: OpenCheckpoint,
): Promise<{ ok: true } | { ok: false; reason: string }> {
  const where = await runGit(root, [
    "rev-parse",
    "--git-path",
    `baton-leftovers-${checkpoint.sessionId}.index`,
  ]);
  if (!where.ok) return { ok: false, reason: "no git directory" };
  const env = { GIT_INDEX_FILE: resolve(root, where.stdout.trim()) };
  rmSync(env.GIT_INDEX_FILE, { force: true });
  try {
    const steps: string[][] = [
      ["read-tree", "HEAD"],
      ["add", "-A", "--pathspec-from-file=-", "--pathspec-file-nul"],
    ];
    for (const args of steps) {
      const stdin = args[0] === "add" ? files.map((f) => `:(literal)${f}\0`).join("") : undefined;
      const step = await runGit(root, args, { env, ...(stdin ? { stdin } : {}) });
      if (!step.ok) return { ok: false, reason: `git ${args[0]}: ${step.stderr.trim() || step.message}` };
    }
    const tree = await runGit(root, ["write-tree"], { env });
    if (!tree.ok) return { ok: false, reason: "git write-tree failed" };
    const message = `baton: task ${checkpoint.taskNumber}'s ${checkpoint.operation} run died; its unrecorded changes\n\n${LEFTOVERS_OF} ${checkpoint.sessionId}\n`;
    const parents = ["-p", "HEAD", ...(previous ? ["-p", previous] : [])];
    const commit = await runGit(
      root,
      ["commit-tree", "--no-gpg-sign", tree.stdout.trim(), ...parents, "-m", message],
      {
        env: IDENTITY,
      },
    );
    if (!commit.ok) return { ok: false, reason: "git commit-tree failed" };
    const ref = await runGit(root, ["update-ref", `refs/heads/${branch}`, commit.stdout.trim()]);
    return ref.ok ? { ok: true } : { ok: false, reason: "git update-ref failed" };
  } finally {
    rmSync(env.GIT_INDEX_FILE, { force: true });
  }
}

// The saved commit is Baton's bookkeeping: it must not depend on the person's identity being configured.
const IDENTITY = {
  GIT_AUTHOR_NAME: "Baton",
  GIT_AUTHOR_EMAIL: "baton@localhost",
  GIT_COMMITTER_NAME: "Baton",
  GIT_COMMITTER_EMAIL: "baton@localhost",
};

/** Each file back to HEAD's version (index and tree), or removed with the folders it leaves empty. */
async function restoreFromHead(root: string, files: readonly string[]): Promise<void> {
  const pathspec = files.map((f) => `:(literal)${f}\0`).join("");
  const inHead = await runGit(root, [
    "ls-tree",
    "-r",
    "-z",
    "--name-only",
    "HEAD",
    "--",
    ...files.map((f) => `:(literal)${f}`),
  ]);
  const tracked = new Set(inHead.ok ? inHead.stdout.split("\0").filter(Boolean) : []);
  await runGit(root, ["reset", "-q", "--pathspec-from-file=-", "--pathspec-file-nul", "HEAD"], {
    stdin: pathspec,
  });
  const back = files.filter((f) => tracked.has(f));
  if (back.length > 0)
    await runGit(root, ["checkout", "-q", "HEAD", "--pathspec-from-file=-", "--pathspec-file-nul"], {
      stdin: back.map((f) => `:(literal)${f}\0`).join(""),
    });
  for (const file of files.filter((f) => !tracked.has(f))) {
    rmSync(join(root, file), { force: true });
    removeEmptyParents(root, dirname(join(root, file)));
  }
}

function removeEmptyParents(root: string, dir: string): void {
  for (let at = dir; at !== root && at.startsWith(`${root}/`); at = dirname(at)) {
    try {
      if (readdirSync(at).length > 0) return;
      rmdirSync(at);
    } catch {
      return;
    }
  }
}
