import { type ChildProcess, spawn } from "node:child_process";
import { resolve as resolvePath } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { LineSplitter, TailBuffer } from "./lines.js";
import { GroupStopper, type ParentStop, trackGroup, untrackGroup } from "./process-group.js";
import { spawnFailure } from "./spawn-failure.js";
import { monotonicMs } from "./time.js";

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
  onParentStop?: ParentStop;
  /** After the group is gone, how long the pipes may stay quiet before their output counts as complete. */
  drainQuietMs?: number;
  /** An open file the child gets as its fd 3 (a sandbox reports there whether its command started). */
  fd3?: number;
  /** Stdout as the bytes that came (`stdoutBytes`, and `stdout` left empty): output framed by byte counts. */
  binaryStdout?: boolean;
}

export type ProcessFailureReason = "exit" | "signal" | "timeout" | "aborted" | "spawn_failed";

interface ProcessRunInfo {
  /** Also the process group id; null when nothing was started. */
  pid: number | null;
  durationMs: number;
  /** The last `tailBytes` of each stream. */
  stdout: string;
  stderr: string;
  stdoutBytes?: Buffer;
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
// A grandchild that left the group (setsid) may keep the pipes open: see drain (at most DRAIN_LIMIT_MS in all).
const DEFAULT_DRAIN_QUIET_MS = 250;
const DRAIN_LIMIT_MS = 5000;
const MAX_TIMER_MS = 2 ** 31 - 1;

export async function runProcess(options: RunProcessOptions): Promise<ProcessResult> {
  const run = new ProcessRun(options);
  if (options.signal?.aborted) return run.failure(null, "aborted", "aborted before it started");
  const spawned = await run.spawn();
  return "child" in spawned ? run.supervise(spawned.child, spawned.pid) : spawned;
}

/** Why Baton stopped a process group before it ended: its deadline, or the caller's signal. */
type StopReason = "timeout" | "aborted";

type FailureExtra = { exitCode?: number | null; signal?: NodeJS.Signals | null; leftoversKilled?: boolean };

/** One process run: started in a group of its own, watched, stopped on timeout or abort, and reported. */
class ProcessRun {
  private readonly started = performance.now();
  private readonly stdoutTail: TailBuffer;
  private readonly stderrTail: TailBuffer;
  private callbackError: { error: unknown } | null = null;
  private stopReason: StopReason | null = null;
  private exited = false;
  private group: GroupStopper | null = null;
  /** Bytes read from both pipes so far: output still arriving is not yet drained. */
  private received = 0;

  constructor(private readonly options: RunProcessOptions) {
    this.stdoutTail = new TailBuffer(options.tailBytes ?? DEFAULT_TAIL_BYTES);
    this.stderrTail = new TailBuffer(options.tailBytes ?? DEFAULT_TAIL_BYTES);
  }

  private info(pid: number | null, leftoversKilled = false): ProcessRunInfo {
    return {
      pid,
      durationMs: Math.round(performance.now() - this.started),
      ...(this.options.binaryStdout
        ? { stdout: "", stdoutBytes: this.stdoutTail.bytes() }
        : { stdout: this.stdoutTail.text() }),
      stderr: this.stderrTail.text(),
      truncated: { stdout: this.stdoutTail.truncated, stderr: this.stderrTail.truncated },
      leftoversKilled,
    };
  }

  failure(
    pid: number | null,
    reason: ProcessFailureReason,
    message: string,
    extra: FailureExtra = {},
  ): ProcessResult {
    return {
      ok: false,
      reason,
      message,
      exitCode: extra.exitCode ?? null,
      signal: extra.signal ?? null,
      ...this.info(pid, extra.leftoversKilled),
    };
  }

  async spawn(): Promise<{ child: ChildProcess; pid: number } | ProcessResult> {
    const { options } = this;
    let child: ChildProcess;
    try {
      child = spawn(options.command, options.args ?? [], {
        cwd: options.cwd,
        // PWD is what a shell would set for this directory: programs that trust it over getcwd() (opencode
        // does) would otherwise work in Baton's own directory instead of `cwd`.
        env: { ...(options.env ?? process.env), PWD: resolvePath(options.cwd) },
        detached: true,
        shell: options.shell ?? false,
        stdio: [options.stdin === undefined ? "ignore" : "pipe", "pipe", "pipe", options.fd3 ?? "ignore"],
      });
    } catch (error) {
      return this.failure(null, "spawn_failed", spawnFailure(options.command, options.cwd, error));
    }
    if (child.pid !== undefined) return { child, pid: child.pid };
    const error = await new Promise<unknown>((resolve) => child.once("error", resolve));
    return this.failure(null, "spawn_failed", spawnFailure(options.command, options.cwd, error));
  }

  private stop(reason: StopReason): void {
    if (this.stopReason !== null || this.exited) return;
    this.stopReason = reason;
    this.group?.terminate();
  }

  /** A throwing callback is a bug in the caller: the child is stopped rather than left running, and it rethrows. */
  private call<T>(callback: ((value: T) => void) | undefined, value: T): void {
    if (callback === undefined || this.callbackError !== null) return;
    try {
      callback(value);
    } catch (error) {
      this.callbackError = { error };
      this.stop("aborted");
    }
  }

  /** Output into the tails and the line callbacks; stdin written and closed. */
  private watch(child: ChildProcess) {
    const guarded = (callback: ((line: string) => void) | undefined) => (line: string) =>
      this.call(callback, line);
    const lines = [
      new LineSplitter(guarded(this.options.onStdoutLine)),
      new LineSplitter(guarded(this.options.onStderrLine)),
    ];
    const count = (bytes: number) => {
      this.received += bytes;
    };
    const closed = Promise.all([
      pipeInto(child.stdout, this.stdoutTail, lines[0]!, count),
      pipeInto(child.stderr, this.stderrTail, lines[1]!, count),
    ]);
    if (child.stdin) {
      child.stdin.on("error", () => {}); // EPIPE when the child exits without reading everything
      child.stdin.end(this.options.stdin);
    }
    return { closed, lines };
  }

  async supervise(child: ChildProcess, pid: number): Promise<ProcessResult> {
    const { options } = this;
    trackGroup(pid, options.onParentStop ?? "kill");
    const group = new GroupStopper(pid, options.killGraceMs ?? DEFAULT_KILL_GRACE_MS);
    this.group = group;
    const output = this.watch(child);
    const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.once("exit", (code, signal) => {
        this.exited = true;
        resolve({ code, signal });
      }),
    );
    child.on("error", () => {}); // a failed kill(); the exit event still follows
    const timeoutMs = options.timeoutMs;
    const timer =
      Number.isFinite(timeoutMs) && timeoutMs > 0 && timeoutMs <= MAX_TIMER_MS
        ? setTimeout(() => this.stop("timeout"), timeoutMs)
        : undefined;
    const onAbort = () => this.stop("aborted");
    options.signal?.addEventListener("abort", onAbort, { once: true });
    this.call(options.onSpawn, pid);
    try {
      const { code, signal } = await exit;
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      const leftoversKilled = await group.settle();
      group.dispose();
      await this.drain(output.closed);
      child.stdout?.destroy();
      child.stderr?.destroy();
      for (const lines of output.lines) lines.end();
      if (this.callbackError !== null) throw this.callbackError.error;
      return this.result(pid, code, signal, leftoversKilled);
    } finally {
      group.dispose();
      untrackGroup(pid);
    }
  }

  /**
   * Until the pipes close, or stay quiet for `drainQuietMs`. Quiet is judged only after the event loop has polled
   * the pipes again, so a timer that ran out while the process was not scheduled (or its loop was blocked)
   * cannot end the wait before output already there is read. Deciding on the timer alone lost the whole
   * stdout of a git that had exited 0, about once in a thousand calls on a loaded machine.
   */
  private async drain(closed: Promise<unknown>): Promise<void> {
    let done = false;
    void closed.then(() => {
      done = true;
    });
    const quietMs = this.options.drainQuietMs ?? DEFAULT_DRAIN_QUIET_MS;
    const limit = monotonicMs() + Math.max(DRAIN_LIMIT_MS, quietMs);
    let seen = this.received;
    let quietSince = monotonicMs();
    while (!done && monotonicMs() < limit) {
      // Unref'd: when the streams close first, this timer must not keep a finished CLI alive.
      await Promise.race([closed, sleep(quietMs / 5, undefined, { ref: false })]);
      if (done) return;
      await new Promise((resolve) => setImmediate(resolve));
      if (this.received !== seen) {
        seen = this.received;
        quietSince = monotonicMs();
      } else if (monotonicMs() - quietSince >= quietMs) return;
    }
  }

  private result(
    pid: number,
    code: number | null,
    signal: NodeJS.Signals | null,
    leftoversKilled: boolean,
  ): ProcessResult {
    const extra = { exitCode: code, signal, leftoversKilled };
    const { timeoutMs } = this.options;
    if (this.stopReason === "timeout")
      return this.failure(pid, "timeout", `timed out after ${timeoutMs} ms; process group killed`, extra);
    if (this.stopReason === "aborted")
      return this.failure(pid, "aborted", "aborted; process group killed", extra);
    if (signal !== null) return this.failure(pid, "signal", `killed by ${signal}`, extra);
    if (code !== 0) return this.failure(pid, "exit", `exited with code ${code}`, extra);
    return { ok: true, exitCode: 0, signal: null, ...this.info(pid, leftoversKilled) };
  }
}

function pipeInto(
  stream: NodeJS.ReadableStream | null,
  tail: TailBuffer,
  lines: LineSplitter,
  count: (bytes: number) => void,
): Promise<void> {
  if (stream === null) return Promise.resolve();
  return new Promise((resolve) => {
    stream.on("data", (chunk: Buffer) => {
      count(chunk.length);
      tail.push(chunk);
      lines.push(chunk);
    });
    stream.once("close", resolve);
    stream.once("error", () => resolve());
  });
}
