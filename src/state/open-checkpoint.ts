import { readdirSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import * as z from "zod/mini";
import { readText } from "./load.js";
import { isProcessAlive } from "./lock.js";

/**
 * One open checkpoint per task: `specs/.baton/checkpoints/{N}.json`, written at GATE IN in the same
 * store write as the in-progress status and removed in the write that records the outcome. It names
 * the session and its process, so a second run can say who holds the task and whether it still lives.
 */
export const OpenCheckpoint = z.object({
  sessionId: z.string(),
  taskNumber: z.number(),
  operation: z.string(),
  /** The status before GATE IN, which a rollback restores. */
  previousStatus: z.string(),
  previousSessionId: z.optional(z.string()),
  pid: z.number(),
  hostname: z.string(),
  startedAt: z.string(),
  /** `session`: opened by `baton gate-in` inside a Claude Code session, closed by `baton gate-out`. */
  mode: z.optional(z.enum(["headless", "session"])),
  /** The Claude Code session (`session_id` of hook input) that opened it, when known. */
  claudeSessionId: z.optional(z.string()),
  /** The agent GATE IN routed to: an in-session gate-out checks and records the same route. */
  agent: z.optional(z.string()),
});
export type OpenCheckpoint = z.infer<typeof OpenCheckpoint>;

export function checkpointPath(internalDir: string, taskNumber: number): string {
  return join(internalDir, "checkpoints", `${taskNumber}.json`);
}

export function readOpenCheckpoint(internalDir: string, taskNumber: number): OpenCheckpoint | null {
  const text = readText(checkpointPath(internalDir, taskNumber));
  if (text === null) return null;
  const parsed = OpenCheckpoint.safeParse(JSON.parse(text));
  return parsed.success ? parsed.data : null;
}

/** Whether the process that opened the checkpoint is still running (unknowable on another host). */
export function isCheckpointProcessAlive(checkpoint: OpenCheckpoint): boolean | "unknown" {
  // gate-in exits at once; the session's life is Claude Code's, which no pid tells.
  if (checkpoint.mode === "session") return "unknown";
  if (checkpoint.hostname !== hostname()) return "unknown";
  return isProcessAlive(checkpoint.pid);
}

/**
 * Whether a Claude Code session is at work: this process runs inside one (its Bash calls carry
 * CLAUDE_CODE_SESSION_ID), or an in-session checkpoint is open in this repository.
 */
export function sessionActive(paths: { internalDir: string }): boolean {
  if (process.env["CLAUDE_CODE_SESSION_ID"]) return true;
  let names: string[];
  try {
    names = readdirSync(join(paths.internalDir, "checkpoints"));
  } catch {
    return false;
  }
  return names.some((name) => {
    const n = /^(\d+)\.json$/.exec(name)?.[1];
    return n !== undefined && readOpenCheckpoint(paths.internalDir, Number(n))?.mode === "session";
  });
}
