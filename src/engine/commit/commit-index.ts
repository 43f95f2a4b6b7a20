import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { commitChanges } from "../../evidence/index.js";
import { runGit, runGitWaitingForLock } from "../../shared/git.js";
import type { WorkSnapshot } from "../gate-out/index.js";
import { staleIndexLock } from "../run/index.js";
import { sealedCommit } from "./sealed-commit.js";
import { settleStoredEvidence } from "./stored-evidence.js";

const git = (root: string, args: string[], options: { env?: Record<string, string>; stdin?: string } = {}) =>
  runGit(root, args, { timeoutMs: 60_000, ...options });

export type IndexCommit =
  | { ok: true; committed: true; sha: string }
  | { ok: true; committed: false; reason: string }
  | { ok: false; reason: string };

const failed = (what: string, result: { stderr: string; message?: string }) => ({
  ok: false as const,
  reason: `${what} failed: ${result.stderr.trim() || result.message || "no message"}`,
});

/**
 * Commits exactly `entries` on top of HEAD, through an index of its own: what is committed is these
 * bytes, never what the work tree or the shared index hold at that moment. The commit is sealed with
 * Baton's key and lands only on the HEAD its tree was read from: when a person commits meanwhile, the
 * entries are staged again on their commit (never undoing it). The shared index then takes the committed
 * paths from HEAD, so `git status` shows a change made after the snapshot as the change it is.
 */
export async function commitEntries(
  root: string,
  entries: WorkSnapshot,
  message: string,
  evidence?: { path: string; batonPaths: ReadonlySet<string> },
): Promise<IndexCommit> {
  for (let attempt = 1; ; attempt++) {
    const result = await commitOnce(root, entries, message, evidence);
    if (!("moved" in result) || !result.moved) return result;
    if (attempt >= HEAD_MOVE_ATTEMPTS) return { ok: false, reason: `${result.reason}, ${attempt} times` };
    // Out of step with whoever commits: a person committing in a loop does not starve Baton's commit.
    await sleep(10 + Math.floor(Math.random() * 40 * attempt));
  }
}

/**
 * A person's commit can land between Baton's read of HEAD and its own (update-ref only moves HEAD from the
 * commit Baton built on, so theirs is never lost); Baton builds again on the new HEAD, up to this many times.
 */
const HEAD_MOVE_ATTEMPTS = 20;

async function commitOnce(
  root: string,
  entries: WorkSnapshot,
  message: string,
  evidence?: { path: string; batonPaths: ReadonlySet<string> },
): Promise<IndexCommit | { ok: false; moved: true; reason: string }> {
  const where = await commitPlace(root);
  if (!where.ok) return where;
  const { prefix, indexPath, lockPath, head } = where;
  const env = { GIT_INDEX_FILE: resolve(root, indexPath) };
  try {
    const read = await git(root, head.sha ? ["read-tree", head.sha] : ["read-tree", "--empty"], { env });
    if (!read.ok) return failed("git read-tree", read);
    const paths = Object.keys(entries).sort();
    const staged = await stageEntries(root, entries, prefix, env);
    if (staged) return staged;
    const same = head.sha
      ? (await git(root, ["diff-index", "--cached", "--quiet", head.sha], { env })).ok
      : (await git(root, ["ls-files", "-z"], { env })).stdout === "";
    if (same) return { ok: true, committed: false, reason: "nothing to commit" };
    // The shared index must take the commit afterwards: a lock nobody releases fails the commit before it lands.
    const lock = await staleIndexLock(root, lockPath);
    if (lock)
      return {
        ok: false,
        reason: `git's index is locked (${lock}): remove it when no git process is running`,
      };
    const commit = await sealedCommit(root, env, message, head.sha ? [head.sha] : [], head.sha);
    if (!commit.ok) return commit.moved ? commit : { ok: false, reason: commit.reason };
    // What git stored: read once for the evidence and for the shared index.
    const committed = commit.sha;
    const changes = await commitChanges(root, committed);
    const settled = await settleStoredEvidence(
      root,
      committed,
      changes,
      evidence?.path,
      evidence?.batonPaths ?? new Set(),
      env,
    );
    if (!settled.ok) return { ok: false, reason: settled.reason };
    await syncSharedIndex(root, [...new Set([...paths, ...changes.keys()])]);
    return { ok: true, committed: true, sha: settled.sha };
  } finally {
    rmSync(env.GIT_INDEX_FILE, { force: true });
    rmSync(`${env.GIT_INDEX_FILE}.lock`, { force: true });
  }
}

/**
 * One process: the prefix, an index path of this commit's own, the shared index's lock, and whether HEAD has
 * a commit (before the first one that line is missing and git exits 1, saying nothing).
 */
async function commitPlace(root: string) {
  const where = await git(root, [
    "rev-parse",
    "--show-prefix",
    "--git-path",
    `baton-index-${randomBytes(6).toString("hex")}`,
    "--git-path",
    "index.lock",
    "--verify",
    "-q",
    "HEAD",
  ]);
  const [prefix = "", indexPath = "", lockPath = "", headLine = ""] = where.stdout.split("\n");
  const unborn = !where.ok && where.exitCode === 1 && where.stderr.trim() === "" && lockPath !== "";
  if (!where.ok && !unborn) return failed("git rev-parse", where);
  const head = { sha: where.ok && /^[0-9a-f]{40,64}$/.test(headLine) ? headLine : null };
  return { ok: true as const, prefix, indexPath, lockPath, head };
}

/** Writes `entries` into the index at `env`; a failure is returned, success is null. */
async function stageEntries(
  root: string,
  entries: WorkSnapshot,
  prefix: string,
  env: Record<string, string>,
): Promise<IndexCommit | null> {
  const paths = Object.keys(entries).sort();
  const present = paths.filter((p) => entries[p] !== null);
  const removed = paths.filter((p) => entries[p] === null);
  if (present.length > 0) {
    const info = present.map((p) => `${entries[p]!.mode} ${entries[p]!.blob}\t${prefix}${p}\0`).join("");
    const added = await git(root, ["update-index", "-z", "--add", "--index-info"], { env, stdin: info });
    if (!added.ok) return failed("git update-index", added);
  }
  if (removed.length > 0) {
    const gone = await git(root, ["update-index", "-z", "--force-remove", "--stdin"], {
      env,
      stdin: removed.map((p) => `${p}\0`).join(""),
    });
    if (!gone.ok) return failed("git update-index", gone);
  }
  return null;
}

/** The shared index takes the committed paths from HEAD; a failure here leaves only `git status` stale. */
async function syncSharedIndex(root: string, paths: readonly string[]): Promise<void> {
  if (paths.length === 0) return;
  await runGitWaitingForLock(root, ["reset", "-q", "--pathspec-from-file=-", "--pathspec-file-nul", "HEAD"], {
    timeoutMs: 60_000,
    stdin: paths.map((p) => `:(literal)${p}\0`).join(""),
  });
}
