import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { isControlFile, LOOP_GUARD_FILE, MARKER_FILE, METADATA_FILE } from "../../shared/baton-paths.js";
import { mutateStore, type StoreContext, type Transaction } from "../../state/index.js";

export { isControlFile, LOOP_GUARD_FILE, MARKER_FILE, METADATA_FILE };

export interface PostflightMarker {
  sessionId: string;
  agent: string;
  taskNumber: number;
  operation: string;
  reason: string;
  claudeSessionId?: string | null | undefined;
}

/**
 * Opens a delegation's postflight in its task folder: the stale metadata and loop guard of an earlier
 * run go (they must never pass as this run's), and the marker names the session and the agent whose
 * result is owed — what the SubagentStop hook and recovery read. The marker is written through the
 * store, so it is sealed like a checkpoint: deleted or changed by anything but Baton, it is put back.
 */
export async function openPostflight(
  ctx: StoreContext,
  folder: string,
  marker: PostflightMarker,
): Promise<string> {
  mkdirSync(folder, { recursive: true });
  rmSync(join(folder, METADATA_FILE), { force: true });
  rmSync(join(folder, LOOP_GUARD_FILE), { force: true });
  const path = join(folder, MARKER_FILE);
  const text = JSON.stringify({
    session_id: marker.sessionId,
    skill: marker.agent,
    task_number: marker.taskNumber,
    operation: marker.operation,
    reason: marker.reason,
    created: new Date().toISOString().replace(/\.\d{3}Z$/, "Z"),
    stop_hook_active: false,
    ...(marker.claudeSessionId ? { claude_session_id: marker.claudeSessionId } : {}),
  });
  await mutateStore(ctx, { command: `baton ${marker.operation} (open postflight)` }, (tx) => {
    tx.writeFile(path, text);
  });
  return path;
}

/**
 * Closes it in the store write that records the outcome: the marker (and its seal) and the loop guard
 * go; the metadata too once its content is recorded.
 */
export function closePostflight(tx: Transaction, folder: string, options: { metadata: boolean }): void {
  for (const name of [MARKER_FILE, LOOP_GUARD_FILE, ...(options.metadata ? [METADATA_FILE] : [])]) {
    tx.deleteFile(join(folder, name));
  }
}
