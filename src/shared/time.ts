import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";

/** `YYYY-MM-DDTHH:MM:SSZ`, the timestamp form used throughout specs/ (no milliseconds). */
export function isoTimestamp(date: Date = new Date()): string {
  return date.toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** `YYYY-MM-DD`, the date form used inside TODO.md entries. */
export function isoDate(date: Date = new Date()): string {
  return date.toISOString().slice(0, 10);
}

export const SESSION_ID_PATTERN = /^sess_\d{10}_[0-9a-f]{6}$/;

/** `sess_{unix seconds}_{6 hex}`, generated in code so no commit ever carries an unexpanded placeholder. */
export function newSessionId(date: Date = new Date()): string {
  return `sess_${Math.floor(date.getTime() / 1000)}_${randomBytes(3).toString("hex")}`;
}

/**
 * Milliseconds on the machine's monotonic clock (CLOCK_MONOTONIC): it never steps when NTP corrects the
 * wall clock or the machine resumes, and every process on one boot reads the same clock. Durations are
 * measured on it; wall-clock times are only ever shown.
 */
export function monotonicMs(): number {
  return Number(process.hrtime.bigint() / 1_000_000n);
}

/** A duration measured on the monotonic clock from the moment it was made. */
export class Stopwatch {
  readonly startedAt = monotonicMs();
  elapsedMs(): number {
    return Math.max(0, monotonicMs() - this.startedAt);
  }
}

/** When something began, in a form another process of the same boot can measure from (an open checkpoint is one). */
export interface StartMark {
  startedAt: string;
  startedMono?: number | undefined;
  bootId?: string | undefined;
}

/** Now, as a start another process can measure from. */
export function startMark(): StartMark {
  const boot = currentBootId();
  return { startedAt: isoTimestamp(), startedMono: monotonicMs(), ...(boot ? { bootId: boot } : {}) };
}

/**
 * How long ago a run began, as another process of the same run sees it: on the monotonic clock when both
 * read it on the same boot (`startedMono` recorded then), else from the wall-clock times, never below zero
 * (a clock stepped back between the two reads a past start as in the future).
 */
export function elapsedSince(
  start: StartMark,
  now: { wallMs?: number; bootId?: string | null } = {},
): number {
  const boot = now.bootId === undefined ? currentBootId() : now.bootId;
  if (
    start.startedMono !== undefined &&
    start.bootId !== undefined &&
    boot !== null &&
    start.bootId === boot
  ) {
    return Math.max(0, monotonicMs() - start.startedMono);
  }
  return Math.max(0, (now.wallMs ?? Date.now()) - Date.parse(start.startedAt));
}

let bootId: string | null | undefined;

/** This boot's id (Linux): two monotonic readings compare only within one boot. Null where there is none. */
export function currentBootId(): string | null {
  if (bootId !== undefined) return bootId;
  try {
    bootId = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim() || null;
  } catch {
    bootId = null;
  }
  return bootId;
}
