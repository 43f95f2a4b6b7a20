import {
  closeSync,
  mkdirSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { hostname } from "node:os";
import { dirname, join } from "node:path";
import { writeFileNamed } from "../shared/atomic-write.js";
import { LockTimeoutError, monotonicMs, withPath } from "../shared/index.js";
import { isProcessAlive, processStarted } from "../shared/process-group.js";

export { isProcessAlive, processStarted };

/**
 * A cross-process lock on the specs folder: a file created with O_EXCL that names its holder. The
 * holder's pid lets a waiter break a lock left by a dead process at once, instead of waiting out a
 * heartbeat; breaking is itself serialised through a second lock file so two waiters can never both
 * "break" a lock and then delete a live holder's fresh one.
 */
export interface LockHolder {
  pid: number;
  /** When that process started (processStarted): a dead holder whose pid was reused still reads as dead. */
  started?: string;
  hostname: string;
  command: string;
  acquiredAt: string;
}

export interface LockOptions {
  timeoutMs: number;
  command: string;
}

export type ReleaseLock = () => void;

let ownStarted: string | null | undefined;
/** This process's own start (processStarted), read once: locks, checkpoints and records all name it. */
export function ownProcessStarted(): string | null {
  ownStarted ??= processStarted(process.pid);
  return ownStarted;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function readHolder(path: string): { raw: string; holder: LockHolder | null } | null {
  try {
    const raw = readFileSync(path, "utf8");
    try {
      return { raw, holder: JSON.parse(raw) as LockHolder };
    } catch {
      return { raw, holder: null };
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

/** A holder is dead when it lives on this host and its pid is gone, or it never finished writing itself. */
function isStale(path: string, read: { raw: string; holder: LockHolder | null }): boolean {
  if (!read.holder) {
    try {
      return Date.now() - statSync(path).mtimeMs > 5_000;
    } catch {
      return false;
    }
  }
  return read.holder.hostname === hostname() && !isProcessAlive(read.holder.pid, read.holder.started);
}

function tryCreate(path: string, content: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, "wx", 0o644);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST") return false;
    if (code === "ENOENT") {
      mkdirSync(dirname(path), { recursive: true });
      return tryCreate(path, content);
    }
    throw error;
  }
  try {
    writeSync(fd, content);
  } catch (error) {
    // A lock that could not say who holds it (a full disk) is not left behind looking stale.
    closeSync(fd);
    rmSync(path, { force: true });
    throw withPath(error, path);
  }
  closeSync(fd);
  return true;
}

function breakStaleLock(lockPath: string, staleRaw: string): void {
  const breaker = `${lockPath}.break`;
  const me = JSON.stringify({ pid: process.pid, hostname: hostname() });
  if (!tryCreate(breaker, me)) {
    const other = readHolder(breaker);
    if (other && isStale(breaker, other)) {
      try {
        unlinkSync(breaker);
      } catch {
        // another waiter removed it first
      }
    }
    return;
  }
  try {
    const current = readHolder(lockPath);
    if (current && current.raw === staleRaw) unlinkSync(lockPath);
  } finally {
    unlinkSync(breaker);
  }
}

/** When this process last released a lock; see the politeness pause in acquireLock. */
let lastReleaseAt = Number.NEGATIVE_INFINITY;

/** Per lock file, the last in-process claim: waiters of one process queue here, not on the file. */
const localTails = new Map<string, Promise<void>>();
/** Per lock file, how many times an in-process holder released it: progress, for the timeout. */
const localHandOns = new Map<string, number>();

/**
 * Waits for the in-process predecessor. As for the file lock, the timeout counts one holder: while
 * the queue moves the deadline moves with it; a holder that keeps the lock past it times the wait out.
 */
async function waitForLocalTurn(lockPath: string, previous: Promise<void>, options: LockOptions) {
  let seen = localHandOns.get(lockPath) ?? 0;
  for (;;) {
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<"timeout">((resolve) => {
      timer = setTimeout(() => resolve("timeout"), options.timeoutMs);
    });
    const outcome = await Promise.race([previous.then(() => "turn" as const), expired]);
    clearTimeout(timer);
    if (outcome === "turn") return;
    const now = localHandOns.get(lockPath) ?? 0;
    if (now !== seen) {
      seen = now;
      continue;
    }
    const holder = readHolder(lockPath)?.holder;
    throw new LockTimeoutError(
      `timed out after ${options.timeoutMs} ms waiting for ${lockPath}, held in this process${holder ? ` by "${holder.command}" since ${holder.acquiredAt}` : ""}`,
      { hint: "Another step of this run holds the store lock for too long; report this as a bug." },
    );
  }
}

/**
 * Takes the lock. Callers in one process (the phases of a plan run) queue in memory and are handed the
 * lock in order the moment it is released; only the head of that queue polls the lock file, against
 * other processes.
 */
export async function acquireLock(lockPath: string, options: LockOptions): Promise<ReleaseLock> {
  const previous = localTails.get(lockPath);
  let releaseLocal: () => void = () => {};
  const mine = new Promise<void>((resolve) => {
    releaseLocal = resolve;
  });
  const tail = (previous ?? Promise.resolve()).then(() => mine);
  localTails.set(lockPath, tail);
  const done = () => {
    releaseLocal();
    if (localTails.get(lockPath) === tail) localTails.delete(lockPath);
  };
  try {
    if (previous) await waitForLocalTurn(lockPath, previous, options);

    const release = await acquireFileLock(lockPath, options, previous !== undefined);
    return () => {
      try {
        release();
      } finally {
        localHandOns.set(lockPath, (localHandOns.get(lockPath) ?? 0) + 1);
        done();
      }
    };
  } catch (error) {
    done();
    throw error;
  }
}

async function acquireFileLock(
  lockPath: string,
  options: LockOptions,
  handedOn: boolean,
): Promise<ReleaseLock> {
  // A process that writes in a loop would otherwise take the lock back before any sleeping waiter
  // wakes up, and the others would starve; a short pause after our own release gives them a turn.
  // A hand-on inside the process skips it: that queue is short (one plan run's phases) and ordered.
  const sinceRelease = monotonicMs() - lastReleaseAt;
  if (sinceRelease < 20 && !handedOn) await sleep(2 + Math.random() * 6);
  const started = ownProcessStarted();
  const holder: LockHolder = {
    pid: process.pid,
    hostname: hostname(),
    command: options.command,
    acquiredAt: new Date().toISOString(),
    ...(started ? { started } : {}),
  };
  const content = JSON.stringify(holder);
  // The timeout measures how long one holder keeps the lock, not how long we have queued: a busy
  // store (64 writers) hands the lock on every few milliseconds and must never look stuck.
  let deadline = monotonicMs() + options.timeoutMs;
  let lastHolder: string | undefined;
  let delay = 1;
  for (;;) {
    if (tryCreate(lockPath, content)) {
      return () => {
        const current = readHolder(lockPath);
        if (current?.raw === content) unlinkSync(lockPath);
        lastReleaseAt = monotonicMs();
      };
    }
    const read = readHolder(lockPath);
    if (read && isStale(lockPath, read)) {
      breakStaleLock(lockPath, read.raw);
      continue;
    }
    if (read && read.raw !== lastHolder) {
      lastHolder = read.raw;
      deadline = monotonicMs() + options.timeoutMs;
    }
    if (monotonicMs() >= deadline) {
      const h = read?.holder;
      const who = h
        ? `pid ${h.pid} on ${h.hostname} ("${h.command}", since ${h.acquiredAt})`
        : "an unknown process (the lock file is empty)";
      throw new LockTimeoutError(
        `timed out after ${options.timeoutMs} ms waiting for ${lockPath}, held by ${who}`,
        {
          hint: `Wait for that command to finish. If no such process exists any more, delete ${lockPath}.`,
        },
      );
    }
    await sleep(delay + Math.random() * delay);
    delay = Math.min(delay * 2, 16);
  }
}

/** Keeps git from ever committing Baton's control files (lock, journal, session records). */
export function ensureInternalDir(internalDir: string): void {
  mkdirSync(internalDir, { recursive: true });
  const ignore = join(internalDir, ".gitignore");
  try {
    writeFileNamed(ignore, "*\n", { flag: "wx" });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
}
