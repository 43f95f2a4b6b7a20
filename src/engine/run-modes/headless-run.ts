import { relative } from "node:path";
import type { BatonConfig } from "../../config/index.js";
import type { RunUsage } from "../../runners/index.js";
import { BudgetExceededError, Stopwatch } from "../../shared/index.js";
import type { Operation } from "../../state/index.js";
import {
  isCheckpointProcessAlive,
  readOpenCheckpoint,
  readSettledStore,
  settleInterruptedWrite,
  storeContext,
} from "../../state/index.js";
import { HeadlessDelegation } from "../delegate/index.js";
import type { Driven } from "../drive/index.js";
import { drive } from "../drive/index.js";
import { OperationRecorder } from "../event-recorder.js";
import type { PlanRunReport } from "../plan-run/index.js";
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
  type SessionJournal,
} from "../run/index.js";
import { initialState, type RunResult } from "../transition.js";

export type { ProgressEvent };

/** `baton <operation> N`: the run, how Baton's runner executes it, and where its progress goes. */
export interface OperationRequest extends HeadlessRequest {
  /** Progress for a terminal: engine checkpoints and the runner's own events. */
  onProgress?: ((event: ProgressEvent) => void) | undefined;
}

export interface OperationReport {
  sessionId: string;
  operation: Operation;
  taskNumber: number;
  agent: string;
  routeReason: string;
  runner: string;
  result: RunResult;
  status: string;
  artifacts: string[];
  usage?: RunUsage;
  journal: string;
  /** An earlier run of this task that had died, resolved before this one started. */
  recovered?: RecoveryAction;
  /** Set when implement ran the plan phase by phase. */
  plan?: PlanRunReport & { file: string };
  /** Set when a budget stopped the run: run it again with more budget and it goes on from there. */
  budget?: BudgetStop;
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

/** The run's budget guard; a run that a limit forbids from starting is refused here, before GATE IN. */
function budgetFor(run: HeadlessRun, recorder: OperationRecorder): BudgetGuard {
  const limits = budgetLimits(run.config, run.operation, run.execution.maxCost, run.plan !== null);
  const budget = BudgetGuard.forRun(run.config.root, limits, run.taskNumber);
  const refused = budget.active ? budget.mayStart() : undefined;
  if (!refused) return budget;
  recorder.budget("refused", refused.message);
  throw new BudgetExceededError(`task ${run.taskNumber}'s ${run.operation} not started: ${refused.message}`, {
    hint: "Raise the limit (`--max-cost USD`, or `budgets` in baton.config.*) and run it again.",
  });
}

/** Runs one operation through GATE IN → DELEGATE → GATE OUT → COMMIT, journaling every step. */
export async function runOperation(request: OperationRequest): Promise<OperationReport> {
  const recovered = await resolveDeadRun(request.config, request.taskNumber);
  const run = await prepareHeadlessRun(request);
  const started = new Stopwatch();
  const recorder = new OperationRecorder(run, run.execution.runner.kind);
  const budget = budgetFor(run, recorder);
  const journal = runJournal(run);
  const emit = (event: ProgressEvent) => {
    recorder.progress(event);
    request.onProgress?.(event);
  };
  const delegation = new HeadlessDelegation(run.execution, { journal, emit, budget });
  const driven = await drive(run, { journal, emit, commit: run.execution.commit }, delegation, {
    state: initialState(run.operation, run.taskNumber, run.sessionId),
    event: { type: "start" },
  });
  recorder.finish(driven.state.result!, delegation.usage, started.elapsedMs());
  if (budget.stopped) recorder.budget("exceeded", budget.stopped.message);
  const report = await operationReport(run, driven, delegation, journal);
  if (budget.stopped) report.budget = budget.stopped;
  if (recovered) report.recovered = recovered;
  return report;
}

async function operationReport(
  run: HeadlessRun,
  driven: Driven,
  delegation: HeadlessDelegation,
  journal: SessionJournal,
): Promise<OperationReport> {
  const final = (await readSettledStore(run.ctx)).state.tasks.find(
    (t) => t.project_number === run.taskNumber,
  );
  const report: OperationReport = {
    sessionId: run.sessionId,
    operation: run.operation,
    taskNumber: run.taskNumber,
    agent: run.route.agent.name,
    routeReason: run.route.reason,
    runner: run.execution.runner.kind,
    result: driven.state.result!,
    status: final?.status ?? "unknown",
    artifacts: driven.verdict?.artifacts.map((a) => a.path) ?? [],
    journal: relative(run.config.root, journal.path),
  };
  if (delegation.usage) report.usage = delegation.usage;
  if (delegation.planReport && run.plan) {
    report.plan = { ...delegation.planReport, file: relative(run.config.root, run.plan.planPath) };
  }
  return report;
}
