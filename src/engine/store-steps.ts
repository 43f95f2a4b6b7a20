import { hostname } from "node:os";
import {
  appendError,
  applyStatus,
  checkOperationStart,
  checkpointPath,
  type GitBaseline,
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
    mode?: "headless" | "session";
    claudeSessionId?: string | undefined;
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
    startedAt: tx.timestamp,
  };
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
    /**
     * A commit follows: this open checkpoint (as the caller read it in this write) stays open, marked
     * recorded, until the commit closes it.
     */
    commitPending?: OpenCheckpoint | null;
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
  const path = checkpointPath(tx.paths.internalDir, request.taskNumber);
  const open = request.commitPending;
  if (!open) {
    tx.deleteFile(path);
    return;
  }
  const recorded = { at: tx.timestamp, outcome: request.outcome, pid: process.pid, hostname: hostname() };
  tx.writeFile(path, JSON.stringify({ ...open, recorded }, null, 2));
}

/** The write after the recorded result's commit landed (or was not wanted): the checkpoint closes. */
export function closeCheckpoint(tx: Transaction, taskNumber: number): void {
  tx.deleteFile(checkpointPath(tx.paths.internalDir, taskNumber));
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
