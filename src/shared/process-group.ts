import { readdirSync, readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { monotonicMs } from "./time.js";

/** Sends a signal to every process of a group; a group that is already gone is not an error. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // ESRCH: nothing left to signal. EPERM: a member changed user; nothing more we can do.
  }
}

/** Whether a process with this pid exists on this host (EPERM: it does, as another user). */
export function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Pids of the group's members that still run. `kill(-pgid, 0)` alone is not enough: killed
 * grandchildren are re-parented to init and stay zombies until it reaps them, and zombies still count
 * as members. On Linux /proc tells zombies apart; elsewhere the kill probe is the best available.
 */
export function liveGroupMembers(pgid: number): number[] {
  try {
    process.kill(-pgid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ESRCH") return [];
  }
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return [pgid];
  }
  const live: number[] = [];
  for (const entry of entries) {
    const code = entry.charCodeAt(0);
    if (code < 48 || code > 57) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue; // exited while we looked
    }
    // Format: `pid (comm) state ppid pgrp …`; comm may hold spaces and parentheses, so split after the last ")".
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (fields[0] !== "Z" && fields[0] !== "X" && Number(fields[2]) === pgid) live.push(Number(entry));
  }
  return live;
}

export function groupAlive(pgid: number): boolean {
  return liveGroupMembers(pgid).length > 0;
}

/*
 * Children run in their own process group (so a timeout can kill grandchildren too), which also means
 * a Ctrl+C in the terminal no longer reaches them. If Baton itself is told to stop while an agent runs,
 * these handlers kill every live group first, so no agent keeps editing the repository unsupervised.
 */
/** Whether a signal to Baton kills a live group at once (`kill`) or leaves it to its owner to stop (`owner`). */
export type ParentStop = "kill" | "owner";

const liveGroups = new Map<number, ParentStop>();
const PARENT_SIGNALS: NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];
let installed = false;

function killAllGroups(): void {
  // SIGKILL, not SIGTERM: the parent is going away and cannot wait out a grace period.
  for (const pgid of liveGroups.keys()) signalGroup(pgid, "SIGKILL");
  liveGroups.clear();
}

function onParentSignal(signal: NodeJS.Signals): void {
  // Baton goes on when a handler of its own takes the signal (an operation records its end, `baton run`
  // stops its runs in turn). Counted through handleSignal: a `once` listener is gone by the time this runs.
  const handled = process.listenerCount(signal) > 1 || (handlers.get(signal) ?? 0) > 0;
  for (const [pgid, mode] of liveGroups) {
    if (mode === "kill" || !handled) {
      signalGroup(pgid, "SIGKILL");
      liveGroups.delete(pgid);
    }
  }
  if (!handled) {
    uninstall();
    // Our listener suppressed Node's default "terminate"; with no other listener, restore it by re-raising.
    process.kill(process.pid, signal);
  }
}

/** How many of the caller's own handlers each signal has (see `handleSignal`). */
const handlers = new Map<NodeJS.Signals, number>();

/**
 * Registers a caller's own handler for a stop signal, before any group is tracked, so the process-group
 * handler knows the signal is taken care of; returns the function that removes it again.
 */
export function handleSignal(signal: NodeJS.Signals, handler: () => void): () => void {
  handlers.set(signal, (handlers.get(signal) ?? 0) + 1);
  process.on(signal, handler);
  let removed = false;
  return () => {
    if (removed) return;
    removed = true;
    handlers.set(signal, (handlers.get(signal) ?? 1) - 1);
    process.off(signal, handler);
  };
}

function install(): void {
  if (installed) return;
  installed = true;
  process.on("exit", killAllGroups);
  for (const signal of PARENT_SIGNALS) process.on(signal, onParentSignal);
}

function uninstall(): void {
  if (!installed) return;
  installed = false;
  process.off("exit", killAllGroups);
  for (const signal of PARENT_SIGNALS) process.off(signal, onParentSignal);
}

/**
 * Tracks a group as live; the handlers exist only while at least one group is tracked. `owner`: on a
 * handled stop signal the group is left to its owner, who stops it with a grace period (a child Baton
 * that records its end); it is still killed if Baton exits first.
 */
export function trackGroup(pgid: number, mode: ParentStop = "kill"): void {
  liveGroups.set(pgid, mode);
  install();
}

export function untrackGroup(pgid: number): void {
  liveGroups.delete(pgid);
  if (liveGroups.size === 0) uninstall();
}

// SIGKILL cannot be ignored, but a process in uninterruptible sleep dies late; past this we stop waiting.
const SIGKILL_WAIT_MS = 2000;
const POLL_MS = 20;

/** SIGTERM to the group, SIGKILL after the grace period, and waiting until no member runs. */
export class GroupStopper {
  private termSentAt: number | null = null;
  private killSentAt: number | null = null;
  private killTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly pgid: number,
    private readonly graceMs: number,
  ) {}

  terminate(): void {
    if (this.termSentAt !== null) return;
    this.termSentAt = monotonicMs();
    signalGroup(this.pgid, "SIGTERM");
    // Needed while the direct child still runs (it may ignore SIGTERM); settle() takes over once it exits.
    this.killTimer = setTimeout(() => this.kill(), this.graceMs);
  }

  private kill(): void {
    if (this.killSentAt !== null) return;
    this.killSentAt = monotonicMs();
    signalGroup(this.pgid, "SIGKILL");
  }

  /** After the direct child exited: stops what is left of its group. True if anything was left. */
  async settle(): Promise<boolean> {
    if (!groupAlive(this.pgid)) return false;
    this.terminate();
    while (groupAlive(this.pgid)) {
      const now = monotonicMs();
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

/**
 * When a process started, in clock ticks since boot (Linux: field 22 of /proc/<pid>/stat); null where there is
 * no /proc or the process is gone. With the pid it names one process: a pid alone is reused by the kernel.
 */
export function processStarted(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) may hold spaces and parentheses: count from its closing one.
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] ?? null;
  } catch {
    return null;
  }
}

/**
 * Whether the process with this pid exists on this host (EPERM means it exists but is not ours) and, when
 * `started` was recorded with the pid, is still that process and not a later one the kernel gave its pid.
 */
export function isProcessAlive(pid: number, started?: string): boolean {
  if (!processExists(pid)) return false;
  if (started === undefined) return true;
  const now = processStarted(pid);
  return now === null || now === started;
}
