import { closeSync, mkdirSync, openSync, readdirSync, readSync, renameSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { appendFileNamed, writeFileNamed } from "./atomic-write.js";
import { BATON_GITIGNORE, batonPaths, EVENTS_FILE } from "./baton-paths.js";
import { present } from "./present.js";

/**
 * One append-only JSONL stream per repository (`.baton/events/events.jsonl`) of everything Baton did:
 * operations, phases, agent runs with their usage, gate verdicts, hook decisions, recoveries, commits,
 * budget stops. It is for seeing (`baton status`, `baton ui`); the session journals stay the
 * crash-recovery truth. Writers never fail an operation over it: a stream that cannot be written is
 * skipped with one warning on stderr.
 */
export const EVENT_KINDS = [
  "operation",
  "agent",
  "phase",
  "wave",
  "gate",
  "commit",
  "hook",
  "recovery",
  "budget",
  "queue",
] as const;

export type EventKind = (typeof EVENT_KINDS)[number];

/**
 * One line of the stream. A plain type, checked by hand when read (parseEventLines): hooks append to the
 * stream on every decision worth seeing, and the hook path must not load a schema library for it.
 */
export interface BatonEvent {
  ts: string;
  kind: EventKind;
  /** Baton's session (sess_…); hooks give the host's session in `hostSession`. */
  session?: string;
  hostSession?: string;
  task?: number;
  operation?: string;
  agent?: string;
  phase?: string;
  wave?: number;
  iteration?: number;
  tokensIn?: number;
  tokensOut?: number;
  costUsd?: number;
  durationMs?: number;
  /** started, done, partial, failed, refused, passed, committed, deny, block, recorded, rolled_back, … */
  outcome?: string;
  code?: string;
  message?: string;
  pid?: number;
  /** headless or session. */
  mode?: string;
  runner?: string;
  tool?: string;
  host?: string;
  /** Which machine ran it, when more than one may (queue workers). */
  machine?: string;
}
export type NewEvent = Omit<BatonEvent, "ts"> & { ts?: string };

export { EVENTS_FILE };
/** Past this size the stream is renamed `events-<time>.jsonl` and a new one begins. */
export const ROTATE_BYTES = 8 * 1024 * 1024;
/** Rotated files kept; older ones are deleted. */
export const KEEP_ROTATED = 8;

export function eventsDir(root: string): string {
  return batonPaths(root).events;
}

export function eventsPath(root: string): string {
  return join(batonPaths(root).events, EVENTS_FILE);
}

let warned = false;

/** Appends one event; one `write` per line, so concurrent writers interleave whole lines. */
export function appendEvent(root: string, event: NewEvent, rotateBytes = ROTATE_BYTES): void {
  const line = `${JSON.stringify({ ts: event.ts ?? new Date().toISOString(), ...withoutUndefined(event) })}\n`;
  const dir = eventsDir(root);
  const path = join(dir, EVENTS_FILE);
  try {
    if (!present(dir)) {
      mkdirSync(dir, { recursive: true });
      // The stream is per machine: like Baton's logs, never committed.
      const ignore = batonPaths(root).gitignore;
      if (!present(ignore)) writeFileNamed(ignore, BATON_GITIGNORE);
    }
    rotateIfLarge(dir, path, rotateBytes);
    appendFileNamed(path, line);
  } catch (error) {
    if (!warned) {
      warned = true;
      process.stderr.write(`baton: cannot append to ${path}: ${(error as Error).message}\n`);
    }
  }
}

function withoutUndefined(event: NewEvent): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(event)) if (value !== undefined && key !== "ts") out[key] = value;
  return out;
}

function rotateIfLarge(dir: string, path: string, rotateBytes: number): void {
  let size: number;
  try {
    size = statSync(path).size;
  } catch {
    return;
  }
  if (size < rotateBytes) return;
  const stamp = new Date().toISOString().replace(/[-:.]/g, "");
  let target = "";
  for (let n = 0; target === "" || present(target); n++) {
    target = join(dir, `events-${stamp}-${String(n).padStart(4, "0")}-${process.pid}.jsonl`);
  }
  try {
    renameSync(path, target);
  } catch {
    return; // another writer rotated it first
  }
  const rotated = rotatedFiles(dir);
  for (const old of rotated.slice(0, Math.max(0, rotated.length - KEEP_ROTATED))) {
    rmSync(join(dir, old), { force: true });
  }
}

/** Rotated files, oldest first (their names sort by time). */
export function rotatedFiles(dir: string): string[] {
  try {
    return readdirSync(dir)
      .filter((name) => /^events-.+\.jsonl$/.test(name))
      .sort();
  } catch {
    return [];
  }
}

/** Parses the lines of a chunk; a torn or foreign line is skipped, never fatal. */
export function parseEventLines(text: string): BatonEvent[] {
  const out: BatonEvent[] = [];
  for (const line of text.split("\n")) {
    if (line === "") continue;
    try {
      const value = JSON.parse(line) as BatonEvent;
      // A line of another shape (a foreign writer, a future kind) is skipped rather than miscounted.
      if (
        typeof value === "object" &&
        value !== null &&
        typeof value.ts === "string" &&
        (EVENT_KINDS as readonly string[]).includes(value.kind) &&
        (value.costUsd === undefined || typeof value.costUsd === "number") &&
        (value.task === undefined || typeof value.task === "number")
      )
        out.push(value);
    } catch {
      // a line cut by a crash mid-write
    }
  }
  return out;
}

/** The bytes of `path` from `offset` to the last complete line, and the offset after it. */
export function readFrom(path: string, offset: number): { text: string; end: number } {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    return { text: "", end: offset };
  }
  try {
    const size = statSync(path).size;
    if (size <= offset) return { text: "", end: size < offset ? 0 : offset };
    const buffer = Buffer.alloc(size - offset);
    let read = 0;
    while (read < buffer.length) {
      const n = readSync(fd, buffer, read, buffer.length - read, offset + read);
      if (n === 0) break;
      read += n;
    }
    const last = buffer.lastIndexOf(10, read - 1);
    if (last < 0) return { text: "", end: offset };
    return { text: buffer.toString("utf8", 0, last + 1), end: offset + last + 1 };
  } finally {
    closeSync(fd);
  }
}

/** Every event still on disk, oldest first (rotated files, then the current one). */
export function readAllEvents(root: string): BatonEvent[] {
  const dir = eventsDir(root);
  const out: BatonEvent[] = [];
  for (const name of [...rotatedFiles(dir), EVENTS_FILE]) {
    out.push(...parseEventLines(readFrom(join(dir, name), 0).text));
  }
  return out;
}
