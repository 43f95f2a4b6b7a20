import { relative } from "node:path";
import type { RunUsage } from "../../runners/index.js";
import type { Operation } from "../../state/index.js";
import { readSettledStore } from "../../state/index.js";
import type { HeadlessDelegation } from "../delegate/index.js";
import type { Driven } from "../drive/index.js";
import type { PlanRunReport } from "../plan-run/index.js";
import type { RecoveryAction } from "../recovery/index.js";
import type { BudgetStop, HeadlessRun, SessionJournal } from "../run/index.js";
import type { RunResult } from "../transition.js";

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

/** How a headless run ended, as its drive, its delegation and its journal left it. */
export interface HeadlessEnd {
  driven: Driven;
  delegation: HeadlessDelegation;
  journal: SessionJournal;
  stopped: BudgetStop | undefined;
  recovered: RecoveryAction | undefined;
}

/** What `baton <operation> N` reports: the run's result with the task's status as the store holds it now. */
export async function operationReport(run: HeadlessRun, end: HeadlessEnd): Promise<OperationReport> {
  const { driven, delegation } = end;
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
    journal: relative(run.config.root, end.journal.path),
  };
  if (delegation.usage) report.usage = delegation.usage;
  if (delegation.planReport && run.plan) {
    report.plan = { ...delegation.planReport, file: relative(run.config.root, run.plan.planPath) };
  }
  if (end.stopped) report.budget = end.stopped;
  if (end.recovered) report.recovered = end.recovered;
  return report;
}
