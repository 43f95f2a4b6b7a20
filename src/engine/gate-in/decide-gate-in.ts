import {
  checkOperationStart,
  isCheckpointProcessAlive,
  OPERATION_RULES,
  type OpenCheckpoint,
  type Operation,
  readOpenCheckpoint,
} from "../../state/index.js";

/** What GATE IN decides, before anything is written; the dry run shows exactly this. */
export type GateInDecision =
  | { ok: true; forced: boolean; inProgress: string; done: string; takeover: OpenCheckpoint | null }
  | { ok: false; reason: string };

/**
 * GATE IN's decision as a pure function of what the files and the process table say: the lifecycle
 * table allows the operation, and no other run holds the task. `--force` may take over a checkpoint
 * only when its process is gone, or an in-session one (which no process tells about).
 */
export function decideGateIn(input: {
  taskNumber: number;
  operation: Operation;
  status: string;
  force: boolean;
  open: OpenCheckpoint | null;
  /** isCheckpointProcessAlive(open); ignored without an open checkpoint. */
  alive: boolean | "unknown";
}): GateInDecision {
  const { open, taskNumber, force } = input;
  if (open) {
    const who = `session ${open.sessionId} (${open.operation}, pid ${open.pid} on ${open.hostname}, since ${open.startedAt})`;
    if (open.mode === "session" && !force) {
      return {
        ok: false,
        reason: `task ${taskNumber} has an open in-session checkpoint: ${who}; close it with \`baton gate-out ${open.operation} ${taskNumber} --session ${open.sessionId}\`, or take it over with --force`,
      };
    }
    if (input.alive !== false && open.mode !== "session") {
      return {
        ok: false,
        reason: `task ${taskNumber} has an open checkpoint: ${who}${input.alive === "unknown" ? "; its host cannot be checked" : " is still running"}`,
      };
    }
    if (!force) {
      return {
        ok: false,
        reason: `task ${taskNumber} has an open checkpoint from ${who}, whose process is gone; run \`baton recover\` or pass --force`,
      };
    }
  }
  const verdict = checkOperationStart(input.operation, input.status, force);
  if (!verdict.ok) return { ok: false, reason: `task ${taskNumber}: ${verdict.reason}` };
  const rules = OPERATION_RULES[input.operation];
  return { ok: true, forced: verdict.forced, inProgress: rules.inProgress, done: rules.done, takeover: open };
}

/** GATE IN's decision and what it reads, for the store write and the dry run alike. */
export function readGateIn(
  internalDir: string,
  request: { taskNumber: number; operation: Operation; status: string; force: boolean },
): GateInDecision {
  const open = readOpenCheckpoint(internalDir, request.taskNumber);
  return decideGateIn({ ...request, open, alive: open ? isCheckpointProcessAlive(open) : false });
}
