import { hostname } from "node:os";
import { startMark } from "../../shared/index.js";
import type { RunMode } from "../../shared/run-words.js";
import {
  applyStatus,
  checkpointPath,
  type GitBaseline,
  type OpenCheckpoint,
  type Operation,
  ownProcessStarted,
  recordAudit,
  requireTask,
  type Transaction,
} from "../../state/index.js";
import { readGateIn } from "./decide-gate-in.js";

export type GateInVerdict = { ok: true; checkpoint: OpenCheckpoint } | { ok: false; reason: string };

/**
 * GATE IN, inside one store write: the decision above, then the in-progress status, the session id
 * and the open-checkpoint record land together.
 */
export function gateIn(
  tx: Transaction,
  request: {
    taskNumber: number;
    operation: Operation;
    sessionId: string;
    force: boolean;
    /** In-session gates: the checkpoint outlives the process that opened it. */
    mode?: RunMode;
    claudeSessionId?: string | null | undefined;
    /** The agent the run delegates to, so the closing gate-out routes the same way. */
    agent?: string | undefined;
    /** The work tree now, for the diff evidence at GATE OUT; null outside git. */
    baseline?: GitBaseline | null;
  },
): GateInVerdict {
  const task = requireTask(tx, request.taskNumber);
  const decision = readGateIn(tx.paths.internalDir, { ...request, status: task.status });
  if (!decision.ok) return decision;
  const open = decision.takeover;
  const previousStatus = open ? open.previousStatus : task.status;
  const checkpoint: OpenCheckpoint = {
    sessionId: request.sessionId,
    taskNumber: request.taskNumber,
    operation: request.operation,
    previousStatus,
    pid: process.pid,
    hostname: hostname(),
    // The store write's own timestamp; the monotonic clock and boot from the same start mark a run takes.
    ...startMark(),
    startedAt: tx.timestamp,
  };
  const started = ownProcessStarted();
  if (started) checkpoint.pidStarted = started;
  if (task.session_id !== undefined) checkpoint.previousSessionId = task.session_id;
  if (request.mode === "session") checkpoint.mode = "session";
  if (request.claudeSessionId) checkpoint.claudeSessionId = request.claudeSessionId;
  if (request.agent) checkpoint.agent = request.agent;
  if (request.baseline) checkpoint.baseline = request.baseline;
  if (decision.forced || open) {
    recordAudit(task, {
      timestamp: tx.timestamp,
      action: `${request.operation} --force`,
      from: task.status,
      to: decision.inProgress,
      note: open
        ? `took over the checkpoint of dead session ${open.sessionId}`
        : "started past the lifecycle table",
    });
  }
  task.session_id = request.sessionId;
  if (request.operation === "implement" && task["started"] === undefined) task["started"] = tx.timestamp;
  applyStatus(tx, task, decision.inProgress);
  tx.writeFile(checkpointPath(tx.paths.internalDir, request.taskNumber), JSON.stringify(checkpoint, null, 2));
  return { ok: true, checkpoint };
}
