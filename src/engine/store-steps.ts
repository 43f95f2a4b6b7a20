import { hostname } from "node:os";
import {
  appendError,
  applyStatus,
  checkOperationStart,
  checkpointPath,
  isCheckpointProcessAlive,
  linkArtifacts,
  OPERATION_RULES,
  type OpenCheckpoint,
  readOpenCheckpoint,
  recordAudit,
  requireTask,
  type Transaction,
} from "../state/index.js";
import type { VerifiedArtifact } from "./gates/types.js";
import type { FailureCode } from "./machine.js";
import type { ReturnMetadata } from "./return-metadata.js";
import type { Checkpoint } from "./session-journal.js";

type Operation = keyof typeof OPERATION_RULES;

export type GateInVerdict = { ok: true; checkpoint: OpenCheckpoint } | { ok: false; reason: string };

/**
 * GATE IN, inside one store write: the lifecycle table allows the operation, no other run holds the
 * task, and then the in-progress status, the session id and the open-checkpoint record land together.
 * `--force` may take over a checkpoint only when its process is gone.
 */
export function gateIn(
  tx: Transaction,
  request: {
    taskNumber: number;
    operation: Operation;
    sessionId: string;
    force: boolean;
    /** In-session gates: the checkpoint outlives the process that opened it. */
    mode?: "headless" | "session";
    claudeSessionId?: string | undefined;
  },
): GateInVerdict {
  const task = requireTask(tx, request.taskNumber);
  const open = readOpenCheckpoint(tx.paths.internalDir, request.taskNumber);
  if (open) {
    const alive = isCheckpointProcessAlive(open);
    const who = `session ${open.sessionId} (${open.operation}, pid ${open.pid} on ${open.hostname}, since ${open.startedAt})`;
    // An in-session checkpoint has no process to check: it is closed by gate-out, or taken over with --force.
    if (open.mode === "session" && !request.force) {
      return {
        ok: false,
        reason: `task ${request.taskNumber} has an open in-session checkpoint: ${who}; close it with \`baton gate-out ${open.operation} ${request.taskNumber} --session ${open.sessionId}\`, or take it over with --force`,
      };
    }
    if (alive !== false && open.mode !== "session") {
      return {
        ok: false,
        reason: `task ${request.taskNumber} has an open checkpoint: ${who}${alive === "unknown" ? "; its host cannot be checked" : " is still running"}`,
      };
    }
    if (!request.force) {
      return {
        ok: false,
        reason: `task ${request.taskNumber} has an open checkpoint from ${who}, whose process is gone; run \`baton recover\` or pass --force`,
      };
    }
  }
  const verdict = checkOperationStart(request.operation, task.status, request.force);
  if (!verdict.ok) return { ok: false, reason: `task ${request.taskNumber}: ${verdict.reason}` };
  const previousStatus = open ? open.previousStatus : task.status;
  const checkpoint: OpenCheckpoint = {
    sessionId: request.sessionId,
    taskNumber: request.taskNumber,
    operation: request.operation,
    previousStatus,
    pid: process.pid,
    hostname: hostname(),
    startedAt: tx.timestamp,
  };
  if (task.session_id !== undefined) checkpoint.previousSessionId = task.session_id;
  if (request.mode === "session") checkpoint.mode = "session";
  if (request.claudeSessionId) checkpoint.claudeSessionId = request.claudeSessionId;
  if (verdict.forced || open) {
    recordAudit(task, {
      timestamp: tx.timestamp,
      action: `${request.operation} --force`,
      from: task.status,
      to: OPERATION_RULES[request.operation].inProgress,
      note: open
        ? `took over the checkpoint of dead session ${open.sessionId}`
        : "started past the lifecycle table",
    });
  }
  task.session_id = request.sessionId;
  if (request.operation === "implement" && task["started"] === undefined) task["started"] = tx.timestamp;
  applyStatus(tx, task, OPERATION_RULES[request.operation].inProgress);
  tx.writeFile(checkpointPath(tx.paths.internalDir, request.taskNumber), JSON.stringify(checkpoint, null, 2));
  return { ok: true, checkpoint };
}

/** The write after an accepted result: done (or partial) status, links, completion data; checkpoint closed. */
export function recordResult(
  tx: Transaction,
  request: {
    taskNumber: number;
    operation: Operation;
    outcome: "done" | "partial";
    metadata: ReturnMetadata;
    artifacts: VerifiedArtifact[];
    /** A plan run knows the first incomplete phase itself (phase numbers may skip). */
    resumePhase?: number;
  },
): void {
  const task = requireTask(tx, request.taskNumber);
  if (request.artifacts.length > 0) linkArtifacts(tx, task, request.artifacts);
  if (request.outcome === "done") {
    const completion = request.metadata.completion_data;
    if (request.operation === "implement" && completion?.completion_summary) {
      task["completion_summary"] = completion.completion_summary;
      if (completion.roadmap_items) task["roadmap_items"] = completion.roadmap_items;
      if (completion.claudemd_suggestions !== undefined)
        task["claudemd_suggestions"] = completion.claudemd_suggestions;
    }
    applyStatus(tx, task, OPERATION_RULES[request.operation].done);
  } else if (request.operation === "implement") {
    // A partial implementation is resumable from the first phase not completed.
    const progress = request.metadata.partial_progress;
    if (request.resumePhase !== undefined) task["resume_phase"] = request.resumePhase;
    else if (progress?.phases_completed !== undefined) task["resume_phase"] = progress.phases_completed + 1;
    applyStatus(tx, task, "partial");
  }
  // research, plan and revise keep their in-progress status when partial: the same operation resumes.
  tx.deleteFile(checkpointPath(tx.paths.internalDir, request.taskNumber));
}

/** The write after a failure: the task stays retryable in its in-progress status, errors.json says why. */
export function recordFailure(
  tx: Transaction,
  request: {
    taskNumber: number;
    operation: Operation;
    sessionId: string;
    checkpoint: Checkpoint;
    code: FailureCode;
    message: string;
    delegationPath: string[];
  },
): void {
  appendError(tx, {
    type: request.code.toLowerCase(),
    severity: request.checkpoint === "DELEGATE" ? "high" : "medium",
    message: request.message,
    sessionId: request.sessionId,
    command: request.operation,
    task: request.taskNumber,
    checkpoint: request.checkpoint,
    delegationPath: request.delegationPath,
    suggestedAction: `fix the cause, then run \`baton ${request.operation} ${request.taskNumber}\` again (the task stays retryable)`,
  });
  tx.deleteFile(checkpointPath(tx.paths.internalDir, request.taskNumber));
}
