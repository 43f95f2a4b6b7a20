import { mkdirSync, statSync } from "node:fs";
import { basename, dirname, join, relative } from "node:path";
import type { SandboxMode } from "../../config/index.js";
import type { RunOutcome, RunUsage } from "../../runners/index.js";
import { writeFileNamed } from "../../shared/atomic-write.js";
import { readOpenCheckpoint, storePrefix, taskTypeOf } from "../../state/index.js";
import type { GateOutVerdict } from "../gate-out/index.js";
import { checkRunResult, checksFor, runOperationChecks } from "../gate-out/index.js";
import {
  countComplete,
  type PlanRunReport,
  renderRunSummary,
  runMetadata,
  runPlan,
} from "../plan-run/index.js";
import type { ProgressEvent } from "../progress-event.js";
import type { BudgetGuard, HeadlessExecution, SessionJournal } from "../run/index.js";
import { type Run, runContext, runPrompt, runSandbox } from "../run/index.js";
import type { DelegationOutcome, RunEvent } from "../transition.js";
import type { Delegation } from "./delegation.js";
import { openRunMarker } from "./delegation.js";

const REASONS: Record<
  Extract<RunOutcome, { ok: false }>["reason"],
  Extract<DelegationOutcome, { ok: false }>["reason"]
> = {
  exit: "exit",
  crashed: "crashed",
  timeout: "timeout",
  aborted: "aborted",
  spawn_failed: "spawn_failed",
  // A request the runner refused before starting anything fails like an agent that could not start.
  invalid_request: "spawn_failed",
  agent_error: "agent_error",
};

function reduceOutcome(outcome: RunOutcome): DelegationOutcome {
  if (outcome.ok) return { ok: true, output: outcome.output };
  return { ok: false, reason: REASONS[outcome.reason], message: outcome.message, output: outcome.output };
}

/** Where a headless run reports: its journal, its progress, its budget. */
export interface HeadlessIO {
  journal: SessionJournal;
  emit: (event: ProgressEvent) => void;
  budget: BudgetGuard;
}

/** DELEGATE by Baton itself: the runner starts the agent, or a plan runs phase by phase in waves. */
export class HeadlessDelegation implements Delegation {
  usage: RunUsage | undefined;
  planReport: PlanRunReport | undefined;

  constructor(
    private readonly execution: HeadlessExecution,
    private readonly io: HeadlessIO,
  ) {}

  sandbox(run: Run): SandboxMode {
    return run.config.sandbox;
  }

  async delegate(run: Run, artifactPath: string): Promise<RunEvent> {
    await openRunMarker(run, "Postflight pending: status update, artifact linking, git commit");
    const finished = run.plan ? await this.runPlan(run) : await this.runAgent(run, artifactPath);
    const stopped = this.io.budget.stopped;
    if (stopped) this.io.emit({ type: "budget", outcome: "exceeded", message: stopped.message });
    return finished;
  }

  /** One agent, stopped by the run's signal or by the budget its streamed cost crosses. */
  private async runAgent(run: Run, artifactPath: string): Promise<RunEvent> {
    // Signal lines are caught as they stream: the runner keeps only the tail of a long output.
    const streamedSignals: string[] = [];
    const { budget } = this.io;
    // The budget stops this agent alone; Ctrl-C (the run's own signal) stops it too.
    const overBudget = new AbortController();
    const signal = budget.active
      ? AbortSignal.any([this.execution.signal, overBudget.signal])
      : this.execution.signal;
    const outcome = await this.execution.runner.run(
      {
        context: runContext(run, artifactPath),
        prompt: runPrompt(run, artifactPath),
        cwd: run.config.root,
        agent: run.route.agent,
      },
      {
        signal,
        timeoutMs: run.config.timeoutsMs[run.operation],
        sandbox: await runSandbox(run),
        onEvent: (event) => {
          if (event.type === "usage" && budget.onUsage("agent", event.usage)) overBudget.abort();
          if (event.type === "output" && /^\s*(TASK_ERROR|ERROR_CONTEXT):/.test(event.line))
            streamedSignals.push(event.line);
          // Recovery must be able to stop an agent whose baton was killed: its group is detached.
          if (event.type === "started")
            this.io.journal.append({ step: "AGENT", phase: "begin", detail: { agentPid: event.pid } });
          this.io.emit({ type: "runner", event });
        },
      },
    );
    const lost = streamedSignals.filter((line) => !outcome.output.includes(line));
    if (lost.length > 0) outcome.output = `${lost.join("\n")}\n${outcome.output}`;
    if (outcome.usage) this.usage = outcome.usage;
    budget.finished("agent", outcome.usage);
    if (overBudget.signal.aborted && !this.execution.signal.aborted && budget.stopped) {
      return {
        type: "agent_finished",
        outcome: { ok: false, reason: "budget", message: budget.stopped.message, output: outcome.output },
      };
    }
    return { type: "agent_finished", outcome: reduceOutcome(outcome) };
  }

  private async runPlan(run: Run): Promise<RunEvent> {
    const prepared = run.plan!;
    const context = runContext(run);
    context.plan_path = relative(run.config.root, prepared.planPath);
    this.planReport = await runPlan({
      run: { ...run, plan: prepared },
      baseContext: context,
      runner: this.execution.runner,
      journal: this.io.journal,
      concurrency: this.execution.concurrency,
      maxIterations: this.execution.maxIterations,
      isolate: this.execution.isolate,
      commit: this.execution.commit && run.config.commit,
      signal: this.execution.signal,
      budget: this.io.budget,
      emit: (event) => this.io.emit({ type: "plan", event }),
    });
    if (this.planReport.usage) this.usage = this.planReport.usage;
    return { type: "agent_finished", outcome: { ok: true, output: "" } };
  }

  async check(run: Run, agentOutput: string, artifactPath: string): Promise<GateOutVerdict> {
    if (run.plan && this.planReport) return planVerdict(run, this.planReport, artifactPath);
    // Baton's own sandbox keeps git's folder read-only to the agent (sandbox-policy.ts).
    return checkRunResult(run, agentOutput, undefined, run.config.sandbox !== "off");
  }

  resumePhase(): number | undefined {
    if (!this.planReport) return undefined;
    const first = this.planReport.phases.find(
      (p) => p.state !== "settled" && p.record?.verdict.kind !== "complete",
    );
    const value = first ? Number.parseFloat(first.id) : Number.NaN;
    return Number.isFinite(value) ? value : undefined;
  }

  partialDetail(): string | undefined {
    if (!this.planReport) return undefined;
    const { complete, total } = countComplete(this.planReport);
    return `(${complete} of ${total} phases)`;
  }
}

/**
 * GATE OUT of a plan run: the barriers verified each phase (and ran the phase checks); a run that
 * completed every phase also passes the operation's checks. Baton writes the run's summary itself.
 */
async function planVerdict(run: Run, report: PlanRunReport, artifactPath: string): Promise<GateOutVerdict> {
  const plan = run.plan!;
  const { complete, total } = countComplete(report);
  if (report.outcome === "failed") {
    const reasons = report.phases
      .filter((p) => p.record && p.record.verdict.kind !== "complete")
      .map(
        (p) =>
          `Phase ${p.id}: ${p.record!.verdict.kind === "dependency_blocked" ? "blocked" : ((p.record!.verdict as { code?: string }).code ?? p.record!.verdict.kind)}`,
      );
    return {
      ok: false,
      code: "PHASES_FAILED",
      message: `no phase completed (${complete} of ${total} complete): ${reasons.join("; ")}`,
      signals: [],
    };
  }
  const checks =
    report.outcome === "done"
      ? checksFor(run.config, taskTypeOf(run.task) ?? run.config.defaultLanguage, "operation")
      : [];
  const checked = await runOperationChecks({
    repoRoot: run.config.root,
    baseline: readOpenCheckpoint(run.ctx.paths.internalDir, run.taskNumber)?.baseline ?? null,
    checks,
    storePrefix: storePrefix(run.config.root, run.ctx.paths.dir),
    plannedChanges: plan.lines.join("\n"),
    sessionId: run.sessionId,
    taskFolder: run.folder,
  });
  if (!checked.ok) return checked;
  const { checkRuns } = checked;
  const summaryAbs = join(run.config.root, artifactPath);
  mkdirSync(dirname(summaryAbs), { recursive: true });
  writeFileNamed(
    summaryAbs,
    renderRunSummary(report, {
      taskNumber: run.taskNumber,
      title: run.title,
      plan: relative(run.config.root, plan.planPath),
      sessionId: run.sessionId,
      date: new Date().toISOString().slice(0, 10),
    }),
  );
  const metadata = runMetadata(report, artifactPath, run.sessionId, basename(plan.planPath));
  return {
    ok: true,
    outcome: report.outcome === "done" ? "done" : "partial",
    metadata,
    artifacts: [
      { type: "summary", path: artifactPath, summary: metadata.summary, bytes: statSync(summaryAbs).size },
    ],
    ...(checkRuns.length > 0 ? { checkRuns } : {}),
    signals: [],
  };
}
