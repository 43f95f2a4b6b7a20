import type { BatonConfig } from "../../config/index.js";
import { BudgetExceededError } from "../../shared/index.js";
import {
  isCheckpointProcessAlive,
  readOpenCheckpoint,
  settleInterruptedWrite,
  storeContext,
} from "../../state/index.js";
import { HeadlessDelegation } from "../delegate/index.js";
import { drive } from "../drive/index.js";
import { recordRunEvents } from "../event-recorder.js";
import type { ProgressEvent } from "../progress-event.js";
import { type RecoveryAction, recoverCheckpoint } from "../recovery/index.js";
import {
  BudgetGuard,
  type BudgetStop,
  budgetLimits,
  type HeadlessRequest,
  type HeadlessRun,
  prepareHeadlessRun,
  runJournal,
} from "../run/index.js";
import { initialState } from "../transition.js";
import { type OperationReport, operationReport } from "./operation-report.js";

export type { ProgressEvent };

/** `baton <operation> N`: the run, how Baton's runner executes it, and where its progress goes. */
export interface OperationRequest extends HeadlessRequest {
  /** Progress for a terminal: engine checkpoints and the runner's own events. */
  onProgress?: ((event: ProgressEvent) => void) | undefined;
}

/** A run on this task that died is resolved first, so the task never stays stuck in progress. */
export async function resolveDeadRun(
  config: BatonConfig,
  taskNumber: number,
): Promise<RecoveryAction | undefined> {
  const ctx = storeContext(config);
  // The dead run's checkpoint may still be a file of its interrupted store write.
  await settleInterruptedWrite(ctx);
  const open = readOpenCheckpoint(ctx.paths.internalDir, taskNumber);
  return open && isCheckpointProcessAlive(open) === false ? recoverCheckpoint(config, open) : undefined;
}

/** The run's budget guard, or the limit that forbids it to start (it is refused before GATE IN). */
function budgetFor(run: HeadlessRun): { guard: BudgetGuard; refused: BudgetStop | undefined } {
  const limits = budgetLimits(run.config, run.operation, run.execution.maxCost, run.plan !== null);
  const guard = BudgetGuard.forRun(run.config.root, limits, run.taskNumber);
  return { guard, refused: guard.active ? guard.mayStart() : undefined };
}

/** Runs one operation through GATE IN → DELEGATE → GATE OUT → COMMIT, journaling every step. */
export async function runOperation(request: OperationRequest): Promise<OperationReport> {
  const recovered = await resolveDeadRun(request.config, request.taskNumber);
  const run = await prepareHeadlessRun(request);
  const budget = budgetFor(run);
  const emit = recordRunEvents(run, { runner: run.execution.runner.kind, onward: request.onProgress });
  if (budget.refused) {
    emit({ type: "budget", outcome: "refused", message: budget.refused.message });
    throw new BudgetExceededError(
      `task ${run.taskNumber}'s ${run.operation} not started: ${budget.refused.message}`,
      { hint: "Raise the limit (`--max-cost USD`, or `budgets` in baton.config.*) and run it again." },
    );
  }
  const journal = runJournal(run);
  const delegation = new HeadlessDelegation(run.execution, { journal, emit, budget: budget.guard });
  const driven = await drive(run, { journal, emit, commit: run.execution.commit }, delegation, {
    state: initialState(run.operation, run.taskNumber, run.sessionId),
    event: { type: "start" },
  });
  const stopped = budget.guard.stopped;
  return operationReport(run, { driven, delegation, journal, stopped, recovered });
}
