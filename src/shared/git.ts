import { createHash } from "node:crypto";
// Not re-exported by shared/index.js on purpose: task commands load that barrel and never spawn.
import { runProcess } from "./process.js";
import { monotonicMs } from "./time.js";

/** git's object id of a file's bytes, as `git hash-object` computes it (SHA-1 repositories). */
export function gitBlobId(bytes: Buffer): string {
  return createHash("sha1").update(`blob ${bytes.length}\0`).update(bytes).digest("hex");
}

/**
 * The one way Baton runs git: in `cwd` whatever the environment says (variables that point git at another
 * repository are dropped), never prompting, messages in English (some are read), output whole or a failure.
 */
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

/**
 * What makes Baton's own git run nothing of the repository's, whatever its configuration says: no fsmonitor
 * program, no hooks (a commit hook would run unsandboxed and could change what Baton signed), no pager, no
 * external diff. Given as configuration from the environment, after any the caller's environment gives.
 */
const INERT_CONFIG: readonly [string, string][] = [
  ["core.fsmonitor", "false"],
  ["core.hooksPath", "/dev/null"],
  ["core.pager", "cat"],
];

function inertGit(env: NodeJS.ProcessEnv): Record<string, string> {
  const given = Number(env["GIT_CONFIG_COUNT"]);
  const start = Number.isInteger(given) && given > 0 ? given : 0;
  const out: Record<string, string> = {
    GIT_CONFIG_COUNT: String(start + INERT_CONFIG.length),
    GIT_PAGER: "cat",
  };
  INERT_CONFIG.forEach(([key, value], i) => {
    out[`GIT_CONFIG_KEY_${start + i}`] = key;
    out[`GIT_CONFIG_VALUE_${start + i}`] = value;
  });
  delete env["GIT_EXTERNAL_DIFF"];
  return out;
}

export interface GitOptions {
  env?: Record<string, string>;
  timeoutMs?: number;
  /** Written to git's stdin (`hash-object --stdin`, `update-index --index-info`). */
  stdin?: string;
  /** Stdout as bytes (`stdoutBytes`; `stdout` stays empty), for output framed by byte counts (`cat-file --batch`). */
  binary?: boolean;
}

export async function runGit(cwd: string, args: string[], options: GitOptions = {}) {
  const env: NodeJS.ProcessEnv = { ...process.env, GIT_TERMINAL_PROMPT: "0", LC_ALL: "C", LANGUAGE: "C" };
  for (const name of REPO_ENV) delete env[name];
  Object.assign(env, inertGit(env));
  const result = await runProcess({
    command: "git",
    args,
    cwd,
    env: { ...env, ...options.env },
    timeoutMs: options.timeoutMs ?? TIMEOUT_MS,
    tailBytes: OUTPUT_LIMIT,
    ...(options.stdin === undefined ? {} : { stdin: options.stdin }),
    ...(options.binary ? { binaryStdout: true } : {}),
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

/**
 * How long a write waits for another git process's index.lock (an editor's or Claude Code's `git status`);
 * BATON_GIT_LOCK_WAIT_MS changes it (tests of a stale lock need not wait 10 s).
 */
export function gitLockWaitMs(): number {
  const set = Number(process.env["BATON_GIT_LOCK_WAIT_MS"]);
  return Number.isFinite(set) && set >= 0 ? set : 10_000;
}
const LOCKED = /index\.lock': File exists|Unable to create '.*\.lock'|could not lock config file/;

/**
 * A git command that writes the index (add, commit): when another git process holds index.lock for its
 * moment, it is tried again with a growing pause, up to gitLockWaitMs(); a lock that outlives that is stale, and the
 * failure is returned with git's own message.
 */
export async function runGitWaitingForLock(cwd: string, args: string[], options: GitOptions = {}) {
  const deadline = monotonicMs() + gitLockWaitMs();
  for (let pause = 50; ; pause = Math.min(pause * 2, 1000)) {
    const result = await runGit(cwd, args, options);
    if (result.ok || !LOCKED.test(result.stderr) || monotonicMs() + pause > deadline) return result;
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
}

let worktreeTurn: Promise<unknown> = Promise.resolve();

/**
 * `git worktree add|remove|prune`, one at a time in this process: parallel phases and scratch checkouts
 * made at once race on git's shared files (its config, the worktrees' admin folder) and one of them fails.
 */
export function runGitWorktree(cwd: string, args: string[], options: GitOptions = {}) {
  const run = worktreeTurn.then(() => runGitWaitingForLock(cwd, ["worktree", ...args], options));
  worktreeTurn = run.catch(() => undefined);
  return run;
}

export type HeadRef = { ok: true; ref: string | null } | { ok: false; message: string };

/**
 * The branch checked out in `cwd` (`refs/heads/…`), or null for a detached HEAD. Only `symbolic-ref`'s own
 * "not a symbolic ref" (exit 1, nothing on stderr) means detached; any other failure is git's, reported as
 * such, so a git that could not run is never mistaken for a checkout that moved.
 */
export async function readHeadRef(cwd: string): Promise<HeadRef> {
  const head = await runGit(cwd, ["symbolic-ref", "-q", "HEAD"], { env: { GIT_OPTIONAL_LOCKS: "0" } });
  if (head.ok) return { ok: true, ref: head.stdout.trim() };
  if (head.reason === "exit" && head.exitCode === 1 && head.stderr.trim() === "")
    return { ok: true, ref: null };
  const said = head.stderr.trim() || head.message;
  return {
    ok: false,
    message: `git symbolic-ref HEAD failed in ${cwd} (${head.reason} ${head.exitCode ?? head.signal ?? ""}): ${said}`,
  };
}
