import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { resolve as resolvePath } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { LineSplitter, TailBuffer } from "./lines.js";
import { groupAlive, signalGroup, trackGroup, untrackGroup } from "./process-group.js";

/**
 * The one place Baton starts a process. The child leads its own process group so that stopping it
 * (timeout, abort, leftovers after exit) reaches every process it started, not only the direct child.
 * POSIX only: process groups do not exist on Windows.
 */
export interface RunProcessOptions {
  command: string;
  args?: readonly string[];
  cwd: string;
  /** The complete environment of the child (not merged); defaults to Baton's own. */
  env?: NodeJS.ProcessEnv;
  /** Written to the child's stdin, which is then closed; without it stdin is /dev/null. */
  stdin?: string;
  /** Wall-clock limit; 0 or a non-finite value means none. */
  timeoutMs: number;
  /** Between SIGTERM and SIGKILL when the group is stopped. */
  killGraceMs?: number;
  signal?: AbortSignal;
  onSpawn?: (pid: number) => void;
  onStdoutLine?: (line: string) => void;
  onStderrLine?: (line: string) => void;
  /** Bytes of stdout and of stderr kept in the result. */
  tailBytes?: number;
  /** Run `command` through /bin/sh; off unless asked for, so arguments are never re-parsed. */
  shell?: boolean;
  /**
   * `owner`: when Baton is told to stop and handles it (see handleSignal), the group is stopped through
   * `signal` (SIGTERM, then SIGKILL after the grace), not killed at once: for a child that records its end.
   */
  onParentStop?: "kill" | "owner";
}

export type ProcessFailureReason = "exit" | "signal" | "timeout" | "aborted" | "spawn_failed";

interface ProcessRunInfo {
  /** Also the process group id; null when nothing was started. */
  pid: number | null;
  durationMs: number;
  /** The last `tailBytes` of each stream. */
  stdout: string;
  stderr: string;
  truncated: { stdout: boolean; stderr: boolean };
  /** Processes of the group that outlived the direct child and were killed. */
  leftoversKilled: boolean;
}

export type ProcessResult =
  | (ProcessRunInfo & { ok: true; exitCode: 0; signal: null })
  | (ProcessRunInfo & {
      ok: false;
      reason: ProcessFailureReason;
      exitCode: number | null;
      signal: NodeJS.Signals | null;
      message: string;
    });

export const DEFAULT_KILL_GRACE_MS = 2000;
export const DEFAULT_TAIL_BYTES = 64 * 1024;
// SIGKILL cannot be ignored, but a process in uninterruptible sleep dies late; past this we stop waiting.
const SIGKILL_WAIT_MS = 2000;
// A grandchild that left the group (setsid) may keep the pipes open; output after the group is gone waits this long.
const DRAIN_MS = 250;
const POLL_MS = 20;
const MAX_TIMER_MS = 2 ** 31 - 1;

export async function runProcess(options: RunProcessOptions): Promise<ProcessResult> {
  const started = performance.now();
  const stdoutTail = new TailBuffer(options.tailBytes ?? DEFAULT_TAIL_BYTES);
  const stderrTail = new TailBuffer(options.tailBytes ?? DEFAULT_TAIL_BYTES);
  const info = (pid: number | null, leftoversKilled = false): ProcessRunInfo => ({
    pid,
    durationMs: Math.round(performance.now() - started),
    stdout: stdoutTail.text(),
    stderr: stderrTail.text(),
    truncated: { stdout: stdoutTail.truncated, stderr: stderrTail.truncated },
    leftoversKilled,
  });
  const failure = (
    pid: number | null,
    reason: ProcessFailureReason,
    message: string,
    extra: { exitCode?: number | null; signal?: NodeJS.Signals | null; leftoversKilled?: boolean } = {},
  ): ProcessResult => ({
    ok: false,
    reason,
    message,
    exitCode: extra.exitCode ?? null,
    signal: extra.signal ?? null,
    ...info(pid, extra.leftoversKilled),
  });

  if (options.signal?.aborted) return failure(null, "aborted", "aborted before it started");

  let child: ChildProcess;
  try {
    child = spawn(options.command, options.args ?? [], {
      cwd: options.cwd,
      // PWD is what a shell would set for this directory: programs that trust it over getcwd() (opencode
      // does) would otherwise work in Baton's own directory instead of `cwd`.
      env: { ...(options.env ?? process.env), PWD: resolvePath(options.cwd) },
      detached: true,
      shell: options.shell ?? false,
      stdio: [options.stdin === undefined ? "ignore" : "pipe", "pipe", "pipe"],
    });
  } catch (error) {
    return failure(null, "spawn_failed", `could not start ${options.command}: ${errorText(error)}`);
  }
  const pid = child.pid;
  if (pid === undefined) {
    const error = await new Promise<unknown>((resolve) => child.once("error", resolve));
    // Node reports a missing working directory as the command missing (`spawn x ENOENT`).
    const why = existsSync(options.cwd)
      ? errorText(error)
      : `working directory ${options.cwd} does not exist`;
    return failure(null, "spawn_failed", `could not start ${options.command}: ${why}`);
  }
  trackGroup(pid, options.onParentStop ?? "kill");
  const group = new GroupStopper(pid, options.killGraceMs ?? DEFAULT_KILL_GRACE_MS);

  let callbackError: { error: unknown } | null = null;
  let stopReason: "timeout" | "aborted" | null = null;
  let exited = false;
  const stop = (reason: "timeout" | "aborted") => {
    if (stopReason !== null || exited) return;
    stopReason = reason;
    group.terminate();
  };
  // A throwing line callback is a bug in the caller: stop the child rather than leave it running, then rethrow.
  const call = <T>(callback: ((value: T) => void) | undefined, value: T) => {
    if (callback === undefined || callbackError !== null) return;
    try {
      callback(value);
    } catch (error) {
      callbackError = { error };
      stop("aborted");
    }
  };
  const guarded = (callback: ((line: string) => void) | undefined) => (line: string) => call(callback, line);
  const stdoutLines = new LineSplitter(guarded(options.onStdoutLine));
  const stderrLines = new LineSplitter(guarded(options.onStderrLine));
  const streamsClosed = Promise.all([
    pipeInto(child.stdout, stdoutTail, stdoutLines),
    pipeInto(child.stderr, stderrTail, stderrLines),
  ]);
  if (child.stdin) {
    child.stdin.on("error", () => {}); // EPIPE when the child exits without reading everything
    child.stdin.end(options.stdin);
  }

  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => {
      exited = true;
      resolve({ code, signal });
    }),
  );
  child.on("error", () => {}); // a failed kill(); the exit event still follows

  const timeoutMs = options.timeoutMs;
  const timer =
    Number.isFinite(timeoutMs) && timeoutMs > 0 && timeoutMs <= MAX_TIMER_MS
      ? setTimeout(() => stop("timeout"), timeoutMs)
      : undefined;
  const onAbort = () => stop("aborted");
  options.signal?.addEventListener("abort", onAbort, { once: true });
  call(options.onSpawn, pid);

  try {
    const { code, signal } = await exit;
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", onAbort);
    const leftoversKilled = await group.settle();
    group.dispose();
    // Unref'd: when the streams close first, this timer must not keep a finished CLI alive.
    await Promise.race([streamsClosed, sleep(DRAIN_MS, undefined, { ref: false })]);
    child.stdout?.destroy();
    child.stderr?.destroy();
    stdoutLines.end();
    stderrLines.end();
    if (callbackError !== null) throw (callbackError as { error: unknown }).error;

    const extra = { exitCode: code, signal, leftoversKilled };
    if (stopReason === "timeout") {
      return failure(pid, "timeout", `timed out after ${timeoutMs} ms; process group killed`, extra);
    }
    if (stopReason === "aborted") return failure(pid, "aborted", "aborted; process group killed", extra);
    if (signal !== null) return failure(pid, "signal", `killed by ${signal}`, extra);
    if (code !== 0) return failure(pid, "exit", `exited with code ${code}`, extra);
    return { ok: true, exitCode: 0, signal: null, ...info(pid, leftoversKilled) };
  } finally {
    group.dispose();
    untrackGroup(pid);
  }
}

/** SIGTERM to the group, SIGKILL after the grace period, and waiting until no member runs. */
class GroupStopper {
  private termSentAt: number | null = null;
  private killSentAt: number | null = null;
  private killTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly pgid: number,
    private readonly graceMs: number,
  ) {}

  terminate(): void {
    if (this.termSentAt !== null) return;
    this.termSentAt = Date.now();
    signalGroup(this.pgid, "SIGTERM");
    // Needed while the direct child still runs (it may ignore SIGTERM); settle() takes over once it exits.
    this.killTimer = setTimeout(() => this.kill(), this.graceMs);
  }

  private kill(): void {
    if (this.killSentAt !== null) return;
    this.killSentAt = Date.now();
    signalGroup(this.pgid, "SIGKILL");
  }

  /** After the direct child exited: stops what is left of its group. True if anything was left. */
  async settle(): Promise<boolean> {
    if (!groupAlive(this.pgid)) return false;
    this.terminate();
    while (groupAlive(this.pgid)) {
      const now = Date.now();
      if (this.killSentAt === null && now >= this.termSentAt! + this.graceMs) this.kill();
      if (this.killSentAt !== null && now >= this.killSentAt + SIGKILL_WAIT_MS) break;
      await sleep(POLL_MS);
    }
    return true;
  }

  dispose(): void {
    clearTimeout(this.killTimer);
  }
}

function pipeInto(
  stream: NodeJS.ReadableStream | null,
  tail: TailBuffer,
  lines: LineSplitter,
): Promise<void> {
  if (stream === null) return Promise.resolve();
  return new Promise((resolve) => {
    stream.on("data", (chunk: Buffer) => {
      tail.push(chunk);
      lines.push(chunk);
    });
    stream.once("close", resolve);
    stream.once("error", () => resolve());
  });
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
