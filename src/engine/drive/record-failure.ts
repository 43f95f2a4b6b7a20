import {
  appendError,
  checkpointPath,
  mutateStore,
  type Operation,
  requireTask,
  type Transaction,
} from "../../state/index.js";
import type { Checkpoint } from "../run/index.js";
import { closePostflight } from "../run/index.js";
import type { Effect, FailureCode } from "../transition.js";
import type { DriveContext } from "./drive-context.js";

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

/** The store write after any checkpoint refused or failed: the error is logged and the checkpoint closes. */
export async function recordFailureStep(
  ctx: DriveContext,
  effect: Extract<Effect, { type: "record_failure" }>,
): Promise<null> {
  const { run, driven } = ctx;
  driven.status = await mutateStore(run.ctx, { command: ctx.command }, (tx) => {
    recordFailure(tx, {
      taskNumber: run.taskNumber,
      operation: run.operation,
      sessionId: run.sessionId,
      checkpoint: effect.checkpoint,
      code: effect.code,
      message: effect.message,
      delegationPath: run.delegationPath,
    });
    closePostflight(tx, run.folder, { metadata: false });
    return requireTask(tx, run.taskNumber).status;
  });
  return null;
}
