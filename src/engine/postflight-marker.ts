import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const MARKER_FILE = ".postflight-pending";
export const LOOP_GUARD_FILE = ".postflight-loop-guard";
export const METADATA_FILE = ".return-meta.json";

/**
 * Opens a delegation's postflight in its task folder: the stale metadata and loop guard of an earlier
 * run go (they must never pass as this run's), and the marker names the session and the agent whose
 * result is owed — what the SubagentStop hook and recovery read.
 */
export function openPostflight(
  folder: string,
  marker: {
    sessionId: string;
    agent: string;
    taskNumber: number;
    operation: string;
    reason: string;
    claudeSessionId?: string | undefined;
  },
): string {
  mkdirSync(folder, { recursive: true });
  rmSync(join(folder, METADATA_FILE), { force: true });
  rmSync(join(folder, LOOP_GUARD_FILE), { force: true });
  const path = join(folder, MARKER_FILE);
  writeFileSync(
    path,
    JSON.stringify({
      session_id: marker.sessionId,
      skill: marker.agent,
      task_number: marker.taskNumber,
      operation: marker.operation,
      reason: marker.reason,
      created: new Date().toISOString().replace(/\.\d{3}Z$/, "Z"),
      stop_hook_active: false,
      ...(marker.claudeSessionId ? { claude_session_id: marker.claudeSessionId } : {}),
    }),
  );
  return path;
}

/** Closes it: the marker and loop guard go; the metadata too once its content is recorded. */
export function closePostflight(folder: string, options: { metadata: boolean }): void {
  for (const name of [MARKER_FILE, LOOP_GUARD_FILE, ...(options.metadata ? [METADATA_FILE] : [])]) {
    rmSync(join(folder, name), { force: true });
  }
}
