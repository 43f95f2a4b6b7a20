import { readdirSync } from "node:fs";
import { hostname } from "node:os";
import * as z from "zod/mini";
import { storeInternalPaths } from "../shared/baton-paths.js";
import { ACCEPTED_OUTCOMES, RUN_MODES } from "../shared/run-words.js";
import { readText } from "./load-store.js";
import { isProcessAlive } from "./lock.js";

/**
 * One open checkpoint per task: `specs/.baton/checkpoints/{N}.json`, written at GATE IN in the same
 * store write as the in-progress status and removed in the write that records the outcome. It names
 * the session and its process, so a second run can say who holds the task and whether it still lives.
 */
/**
 * What the work tree held when GATE IN opened a run: the commit it stood on and the files that were
 * already dirty, each with git's object id of its content then (null: deleted). Diff evidence is taken
 * against it, so a file a person was editing before the run is not credited to the agent unless the
 * agent changed it further.
 */
export const GitBaseline = z.object({
  commit: z.nullable(z.string()),
  dirty: z.record(z.string(), z.nullable(z.string())),
  /** Every ref and its commit, and the branch HEAD was on: history the agent may not change. */
  refs: z.optional(z.record(z.string(), z.string())),
  headRef: z.optional(z.nullable(z.string())),
  /** What the index held that HEAD does not (`<blob> <path>`): staging the agent does is history in the making. */
  staged: z.optional(z.array(z.string())),
  /** Each guarded settings path's fingerprint (null: absent), ignored by git or not. */
  settings: z.optional(z.record(z.string(), z.nullable(z.string()))),
  /** git's configuration that can make it run a program (gitConfigFingerprint): never changed by a run. */
  gitConfig: z.optional(z.record(z.string(), z.string())),
  /**
   * When it was taken (ms since the epoch): a file of the user's configuration or PATH changed after it was
   * written during the run, and the checks do not see it (engine/gate-out/changed-outside.ts).
   */
  takenAt: z.optional(z.number()),
});
export type GitBaseline = z.infer<typeof GitBaseline>;

export const OpenCheckpoint = z.object({
  sessionId: z.string(),
  taskNumber: z.number(),
  operation: z.string(),
  /** The status before GATE IN, which a rollback restores. */
  previousStatus: z.string(),
  previousSessionId: z.optional(z.string()),
  pid: z.number(),
  /** When that process started (Linux): a dead run's pid reused by another process still reads as dead. */
  pidStarted: z.optional(z.string()),
  hostname: z.string(),
  /** Wall-clock time, for display; durations use `startedMono` within one boot (`bootId`). */
  startedAt: z.string(),
  /** The machine's monotonic clock at GATE IN, in ms: a clock step while the run goes on changes nothing. */
  startedMono: z.optional(z.number()),
  bootId: z.optional(z.string()),
  /** `session`: opened by `baton gate-in` inside a Claude Code session, closed by `baton gate-out`. */
  mode: z.optional(z.enum(RUN_MODES)),
  /** The Claude Code session (`session_id` of hook input) that opened it, when known. */
  claudeSessionId: z.optional(z.string()),
  /** The agent GATE IN routed to: an in-session gate-out checks and records the same route. */
  agent: z.optional(z.string()),
  /** The work tree at GATE IN; absent outside git. */
  baseline: z.optional(GitBaseline),
  /**
   * Set in the store write that records the result when a commit is to follow: the checkpoint stays
   * open until that commit lands, so a run killed (or refused by git) between the two is found and
   * committed by recovery — a record never runs ahead of its commit. The process is the one committing.
   */
  recorded: z.optional(
    z.object({
      at: z.string(),
      outcome: z.enum(ACCEPTED_OUTCOMES),
      pid: z.number(),
      pidStarted: z.optional(z.string()),
      hostname: z.string(),
    }),
  ),
});
export type OpenCheckpoint = z.infer<typeof OpenCheckpoint>;

export function checkpointPath(internalDir: string, taskNumber: number): string {
  return storeInternalPaths(internalDir).checkpoint(taskNumber);
}

/** Task numbers with an open checkpoint, ascending. */
export function openCheckpointNumbers(internalDir: string): number[] {
  try {
    return readdirSync(storeInternalPaths(internalDir).checkpoints)
      .map((f) => /^(\d+)\.json$/.exec(f)?.[1])
      .filter((n): n is string => n !== undefined)
      .map(Number)
      .sort((a, b) => a - b);
  } catch {
    return [];
  }
}

export function readOpenCheckpoint(internalDir: string, taskNumber: number): OpenCheckpoint | null {
  const text = readText(checkpointPath(internalDir, taskNumber));
  if (text === null) return null;
  const parsed = OpenCheckpoint.safeParse(JSON.parse(text));
  return parsed.success ? parsed.data : null;
}

/** Whether the process that opened the checkpoint is still running (unknowable on another host). */
export function isCheckpointProcessAlive(checkpoint: OpenCheckpoint): boolean | "unknown" {
  // After the record, the checkpoint belongs to the process committing it, in a session or not.
  const recorded = checkpoint.recorded;
  if (recorded)
    return recorded.hostname === hostname() ? isProcessAlive(recorded.pid, recorded.pidStarted) : "unknown";
  // gate-in exits at once; the session's life is Claude Code's, which no pid tells.
  if (checkpoint.mode === "session") return "unknown";
  if (checkpoint.hostname !== hostname()) return "unknown";
  return isProcessAlive(checkpoint.pid, checkpoint.pidStarted);
}

/**
 * Whether a Claude Code session is at work: this process runs inside one (its Bash calls carry
 * CLAUDE_CODE_SESSION_ID), or an in-session checkpoint is open in this repository.
 */
export function sessionActive(paths: { internalDir: string }): boolean {
  if (process.env["CLAUDE_CODE_SESSION_ID"]) return true;
  return sessionCheckpoint(paths.internalDir) !== null;
}

/** An open checkpoint a session's gate-in opened, if any: the repository's own word that a session is at work. */
export function sessionCheckpoint(internalDir: string): OpenCheckpoint | null {
  let names: string[];
  try {
    names = readdirSync(storeInternalPaths(internalDir).checkpoints);
  } catch {
    return null;
  }
  for (const name of names) {
    const n = /^(\d+)\.json$/.exec(name)?.[1];
    const open = n === undefined ? null : readOpenCheckpoint(internalDir, Number(n));
    if (open?.mode === "session") return open;
  }
  return null;
}
