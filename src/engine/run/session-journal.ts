import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { storeInternalPaths } from "../../shared/baton-paths.js";
import { withPath } from "../../shared/errors.js";
import type { Checkpoint, StepBoundary } from "../../shared/run-words.js";

export type { Checkpoint };

/**
 * An append-only record of one operation run: each step is written before it starts and after it
 * ends, fsynced, so that after `kill -9` at any instant `baton recover` knows exactly how far the run got.
 */
export interface JournalRecord {
  at: string;
  /** RUN: a recovery; AGENT: the agent process started (its pid, so recovery can stop an orphan). */
  /** PHASE and WAVE: a plan run's progress, so recovery can restore the markers of phases it left open. */
  step: Checkpoint | "RUN" | "AGENT" | "PHASE" | "WAVE";
  phase: StepBoundary;
  /** For "end": whether the step succeeded, and what it established. */
  ok?: boolean;
  detail?: Record<string, unknown>;
}

export function sessionJournalPath(internalDir: string, sessionId: string): string {
  return storeInternalPaths(internalDir).session(sessionId);
}

export class SessionJournal {
  constructor(readonly path: string) {
    mkdirSync(join(path, ".."), { recursive: true });
  }

  append(record: Omit<JournalRecord, "at">): void {
    const line = `${JSON.stringify({ at: new Date().toISOString(), ...record })}\n`;
    const fd = openSync(this.path, "a");
    try {
      writeSync(fd, line);
      fsyncSync(fd);
    } catch (error) {
      throw withPath(error, this.path);
    } finally {
      closeSync(fd);
    }
  }

  begin(step: JournalRecord["step"], detail?: Record<string, unknown>): void {
    this.append(detail ? { step, phase: "begin", detail } : { step, phase: "begin" });
  }

  end(step: JournalRecord["step"], ok: boolean, detail?: Record<string, unknown>): void {
    this.append(detail ? { step, phase: "end", ok, detail } : { step, phase: "end", ok });
  }
}

/** The records of a journal; a torn last line (the crash came mid-write) is ignored. */
export function readJournal(path: string): JournalRecord[] {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return [];
  }
  const records: JournalRecord[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    try {
      records.push(JSON.parse(line) as JournalRecord);
    } catch {
      break;
    }
  }
  return records;
}

/** The last step that began, and whether it ended (and how): what recovery decides from. */
export function lastStep(
  records: readonly JournalRecord[],
): { step: JournalRecord["step"]; ended: boolean; ok?: boolean } | null {
  const last = records[records.length - 1];
  if (!last) return null;
  return last.phase === "end"
    ? { step: last.step, ended: true, ok: last.ok ?? false }
    : { step: last.step, ended: false };
}
