import { relative } from "node:path";
import type { BatonConfig } from "../config/index.js";
import type { Runner, RunUsage } from "../runners/index.js";
import {
  isCheckpointProcessAlive,
  readOpenCheckpoint,
  readSettledStore,
  storeContext,
} from "../state/index.js";
import { drive, type ProgressEvent } from "./executor.js";
import type { GateOperation } from "./gates/types.js";
import { HeadlessDelegation } from "./headless.js";
import { initialState, type RunResult } from "./machine.js";
import type { PlanRunReport } from "./phases/run.js";
import { type RecoveryAction, recoverCheckpoint } from "./recover.js";
import { prepareRun } from "./run.js";
import { SessionJournal, sessionJournalPath } from "./session-journal.js";

export type { ProgressEvent };

export interface OperationRequest {
  config: BatonConfig;
  operation: GateOperation;
  taskNumber: number;
  runner: Runner;
  focus?: string | undefined;
  force?: boolean | undefined;
  agentOverride?: string | undefined;
  languageOverride?: string | undefined;
  commit?: boolean | undefined;
  signal?: AbortSignal | undefined;
  /** Progress for a terminal: engine checkpoints and the runner's own events. */
  onProgress?: ((event: ProgressEvent) => void) | undefined;
  /** Plan runs: phases of one wave run at once (default: config `phases.concurrency`). */
  concurrency?: number | undefined;
  maxIterations?: number | undefined;
  /** `worktree`: each phase works in its own git worktree, merged back in phase order. */
  isolate?: "none" | "worktree" | undefined;
}

export interface OperationReport {
  sessionId: string;
  operation: GateOperation;
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
}

/** A run on this task that died is resolved first, so the task never stays stuck in progress. */
export async function resolveDeadRun(
  config: BatonConfig,
  taskNumber: number,
): Promise<RecoveryAction | undefined> {
  const open = readOpenCheckpoint(storeContext(config).paths.internalDir, taskNumber);
  return open && isCheckpointProcessAlive(open) === false ? recoverCheckpoint(config, open) : undefined;
}

/** Runs one operation through GATE IN → DELEGATE → GATE OUT → COMMIT, journaling every step. */
export async function runOperation(request: OperationRequest): Promise<OperationReport> {
  const recovered = await resolveDeadRun(request.config, request.taskNumber);
  const run = await prepareRun({ ...request, mode: "headless" });
  const journal = new SessionJournal(sessionJournalPath(run.ctx.paths.internalDir, run.sessionId));
  const commit = request.commit !== false;
  const delegation = new HeadlessDelegation({
    runner: request.runner,
    journal,
    signal: request.signal ?? new AbortController().signal,
    emit: (event) => request.onProgress?.(event),
    commit,
    concurrency: request.concurrency ?? run.config.phases.concurrency,
    maxIterations: request.maxIterations ?? run.config.phases.maxIterations,
    isolate: request.isolate ?? "none",
  });
  const driven = await drive(run, { journal, emit: request.onProgress, commit }, delegation, {
    state: initialState(run.operation, run.taskNumber, run.sessionId),
    event: { type: "start" },
  });
  const final = (await readSettledStore(run.ctx)).state.tasks.find(
    (t) => t.project_number === run.taskNumber,
  );
  const report: OperationReport = {
    sessionId: run.sessionId,
    operation: run.operation,
    taskNumber: run.taskNumber,
    agent: run.route.agent.name,
    routeReason: run.route.reason,
    runner: request.runner.kind,
    result: driven.state.result!,
    status: final?.status ?? "unknown",
    artifacts: driven.verdict?.artifacts.map((a) => a.path) ?? [],
    journal: relative(run.config.root, journal.path),
  };
  if (delegation.usage) report.usage = delegation.usage;
  if (recovered) report.recovered = recovered;
  if (delegation.planReport && run.plan) {
    report.plan = { ...delegation.planReport, file: relative(run.config.root, run.plan.planPath) };
  }
  return report;
}
