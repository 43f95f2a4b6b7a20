import { mkdirSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join, relative } from "node:path";
import type { BatonConfig } from "../config/index.js";
import type { Runner, RunnerEvent, RunOutcome, RunUsage } from "../runners/index.js";
import { newSessionId, TaskNotFoundError } from "../shared/index.js";
import {
  findEntry,
  isCheckpointProcessAlive,
  mutateStore,
  readOpenCheckpoint,
  readSettledStore,
  requireTask,
  type StoreContext,
  storeContext,
  type TaskEntry,
  taskFolderPath,
} from "../state/index.js";
import { commitOperation } from "./commit-step.js";
import { loadAgentCatalog } from "./default-agents.js";
import { type GateOutVerdict, runGateOut } from "./gate-out.js";
import type { GateOperation } from "./gates/types.js";
import {
  type DelegationOutcome,
  type Effect,
  initialState,
  type RunEvent,
  type RunResult,
  transition,
} from "./machine.js";
import { type PreparedPlan, preparePlan } from "./phases/prepare.js";
import { countComplete, renderRunSummary, runMetadata } from "./phases/rollup.js";
import { type PlanProgressEvent, type PlanRunReport, runPlan } from "./phases/run.js";
import { closePostflight, METADATA_FILE, openPostflight } from "./postflight-marker.js";
import { buildPrompt, delegationContext, plannedArtifact } from "./prompt.js";
import { type RecoveryAction, recoverCheckpoint } from "./recover.js";
import { extendDelegationPath, type Route, routeTask } from "./routing.js";
import { SessionJournal, sessionJournalPath } from "./session-journal.js";
import { gateIn, recordFailure, recordResult } from "./store-steps.js";

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

export type ProgressEvent =
  | { type: "checkpoint"; step: string; phase: "begin" | "end"; ok?: boolean }
  | { type: "runner"; event: RunnerEvent }
  | { type: "plan"; event: PlanProgressEvent };

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

/** Runs one operation through GATE IN → DELEGATE → GATE OUT → COMMIT, journaling every step. */
export async function runOperation(request: OperationRequest): Promise<OperationReport> {
  const { config, operation, taskNumber } = request;
  const ctx: StoreContext = storeContext(config);
  const snapshot = await readSettledStore(ctx);
  const found = snapshot.state.tasks.find((t) => t.project_number === taskNumber);
  if (!found) {
    throw new TaskNotFoundError(taskNumber, `${ctx.paths.state} (active tasks)`, {
      hint: "`baton task list` shows active tasks.",
    });
  }
  // A run on this task that died is resolved first, so the task never stays stuck in progress.
  const open = readOpenCheckpoint(storeContext(config).paths.internalDir, taskNumber);
  const recovered =
    open && isCheckpointProcessAlive(open) === false ? await recoverCheckpoint(config, open) : undefined;
  const task: TaskEntry = recovered
    ? ((await readSettledStore(ctx)).state.tasks.find((t) => t.project_number === taskNumber) ?? found)
    : found;
  const catalog = loadAgentCatalog(config.root);
  const route: Route = routeTask(config, catalog, task, {
    operation,
    agentOverride: request.agentOverride,
    languageOverride: request.languageOverride,
  });
  const folder = taskFolderPath(ctx.paths.dir, task, config.artifactNaming);
  // A plan is checked whole before GATE IN: a malformed one is reported and nothing runs.
  const prepared: PreparedPlan | null =
    operation === "implement"
      ? preparePlan(config, catalog, task, folder, {
          agent: request.agentOverride,
          language: request.languageOverride,
        })
      : null;
  let planReport: PlanRunReport | undefined;
  const sessionId = newSessionId();
  const delegationPath = extendDelegationPath(extendDelegationPath(["baton"], operation), route.agent.name);
  const journal = new SessionJournal(sessionJournalPath(ctx.paths.internalDir, sessionId));
  const title = findEntry(snapshot.todo, taskNumber)?.title ?? task.project_name;
  const metadataPath = join(folder, METADATA_FILE);
  let artifactPath = "";
  // Signal lines are caught as they stream: the runner keeps only the tail of a long output.
  const streamedSignals: string[] = [];
  let usage: RunUsage | undefined;
  let verdict: Extract<GateOutVerdict, { ok: true }> | undefined;
  const emit = (event: ProgressEvent) => request.onProgress?.(event);

  async function perform(effect: Effect): Promise<RunEvent | null> {
    switch (effect.type) {
      case "journal":
        if (effect.phase === "begin") journal.begin(effect.step, effect.detail);
        else journal.end(effect.step, effect.ok ?? false, effect.detail);
        emit({
          type: "checkpoint",
          step: effect.step,
          phase: effect.phase,
          ...(effect.ok === undefined ? {} : { ok: effect.ok }),
        });
        return null;
      case "gate_in": {
        const result = await mutateStore(ctx, { command: `baton ${operation} ${taskNumber}` }, (tx) => {
          const verdict = gateIn(tx, { taskNumber, operation, sessionId, force: request.force ?? false });
          if (verdict.ok) {
            artifactPath = plannedArtifact(
              config,
              ctx.paths.dir,
              requireTask(tx, taskNumber),
              operation,
            ).recordedPath;
          }
          return verdict;
        });
        return result.ok ? { type: "gate_in_passed" } : { type: "gate_in_refused", message: result.reason };
      }
      case "run_agent": {
        openPostflight(folder, {
          sessionId,
          agent: route.agent.name,
          taskNumber,
          operation,
          reason: "Postflight pending: status update, artifact linking, git commit",
        });
        const context = delegationContext({
          config,
          operation,
          sessionId,
          delegationPath,
          task,
          route,
          folder,
          metadataPath,
          focus: request.focus,
        });
        if (prepared) {
          context.plan_path = relative(config.root, prepared.planPath);
          planReport = await runPlan({
            config,
            ctx,
            prepared,
            taskNumber,
            title,
            taskFolder: relative(config.root, folder),
            sessionId,
            delegationPath,
            baseContext: context,
            runner: request.runner,
            journal,
            concurrency: request.concurrency ?? config.phases.concurrency,
            maxIterations: request.maxIterations ?? config.phases.maxIterations,
            isolate: request.isolate ?? "none",
            commit: request.commit !== false && config.commit,
            signal: request.signal ?? new AbortController().signal,
            emit: (event) => emit({ type: "plan", event }),
          });
          if (planReport.usage) usage = planReport.usage;
          return { type: "agent_finished", outcome: { ok: true, output: "" } };
        }
        const outcome = await request.runner.run(
          {
            context,
            prompt: buildPrompt(context, title, artifactPath),
            cwd: config.root,
            agent: route.agent,
          },
          {
            signal: request.signal ?? new AbortController().signal,
            timeoutMs: config.timeoutsMs[operation],
            onEvent: (event) => {
              // Recovery must be able to stop an agent whose baton was killed: its group is detached.
              if (event.type === "output" && /^\s*(TASK_ERROR|ERROR_CONTEXT):/.test(event.line))
                streamedSignals.push(event.line);
              if (event.type === "started")
                journal.append({ step: "AGENT", phase: "begin", detail: { agentPid: event.pid } });
              emit({ type: "runner", event });
            },
          },
        );
        const lost = streamedSignals.filter((line) => !outcome.output.includes(line));
        if (lost.length > 0) outcome.output = `${lost.join("\n")}\n${outcome.output}`;
        if (outcome.usage) usage = outcome.usage;
        return { type: "agent_finished", outcome: reduceOutcome(outcome) };
      }
      case "check_result":
        if (prepared && planReport)
          return { type: "gate_out_checked", verdict: planVerdict(prepared, planReport) };
        return {
          type: "gate_out_checked",
          verdict: await runGateOut({
            operation,
            sessionId,
            repoRoot: config.root,
            taskFolder: folder,
            metadataPath,
            agentOutput: effect.output,
            minArtifactBytes: config.minArtifactBytes,
          }),
        };
      case "record_result":
        verdict = effect.verdict;
        await mutateStore(ctx, { command: `baton ${operation} ${taskNumber}` }, (tx) => {
          const resumePhase = planReport && firstIncompletePhase(planReport);
          recordResult(tx, {
            taskNumber,
            operation,
            outcome: effect.verdict.outcome,
            metadata: effect.verdict.metadata,
            artifacts: effect.verdict.artifacts,
            ...(resumePhase === undefined ? {} : { resumePhase }),
          });
        });
        // Control files: their content is now in state.json, and they are never committed.
        closePostflight(folder, { metadata: true });
        return { type: "recorded" };
      case "record_failure":
        await mutateStore(ctx, { command: `baton ${operation} ${taskNumber}` }, (tx) =>
          recordFailure(tx, {
            taskNumber,
            operation,
            sessionId,
            checkpoint: effect.checkpoint,
            code: effect.code,
            message: effect.message,
            delegationPath,
          }),
        );
        closePostflight(folder, { metadata: false });
        return null;
      case "commit": {
        if (request.commit === false || !config.commit)
          return { type: "commit_finished", committed: false, error: "commit disabled" };
        const counts = planReport ? countComplete(planReport) : null;
        const result = await commitOperation({
          ctx,
          operation,
          taskNumber,
          folder,
          outcome: effect.outcome,
          sessionId,
          delegationPath,
          partialDetail: counts ? `(${counts.complete} of ${counts.total} phases)` : undefined,
        });
        return { type: "commit_finished", ...result };
      }
    }
  }

  let state = initialState(operation, taskNumber, sessionId);
  const queue: RunEvent[] = [{ type: "start" }];
  while (queue.length > 0) {
    const [next, effects] = transition(state, queue.shift()!);
    state = next;
    for (const effect of effects) {
      const event = await perform(effect);
      if (event) queue.push(event);
    }
  }
  const final = (await readSettledStore(ctx)).state.tasks.find((t) => t.project_number === taskNumber);
  const report: OperationReport = {
    sessionId,
    operation,
    taskNumber,
    agent: route.agent.name,
    routeReason: route.reason,
    runner: request.runner.kind,
    result: state.result!,
    status: final?.status ?? "unknown",
    artifacts: verdict?.artifacts.map((a) => a.path) ?? [],
    journal: relative(config.root, journal.path),
  };
  if (usage) report.usage = usage;
  if (recovered) report.recovered = recovered;
  if (planReport && prepared) report.plan = { ...planReport, file: relative(config.root, prepared.planPath) };
  return report;

  /** GATE OUT of a plan run: the barriers verified each phase; Baton writes the run's summary itself. */
  function planVerdict(plan: PreparedPlan, run: PlanRunReport): GateOutVerdict {
    const { complete, total } = countComplete(run);
    if (run.outcome === "failed") {
      const reasons = run.phases
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
    const summaryAbs = join(config.root, artifactPath);
    mkdirSync(dirname(summaryAbs), { recursive: true });
    writeFileSync(
      summaryAbs,
      renderRunSummary(run, {
        taskNumber,
        title,
        plan: relative(config.root, plan.planPath),
        sessionId,
        date: new Date().toISOString().slice(0, 10),
      }),
    );
    const metadata = runMetadata(run, artifactPath, sessionId, basename(plan.planPath));
    return {
      ok: true,
      outcome: run.outcome === "done" ? "done" : "partial",
      metadata,
      artifacts: [
        { type: "summary", path: artifactPath, summary: metadata.summary, bytes: statSync(summaryAbs).size },
      ],
      signals: [],
    };
  }
}

/** The first phase not complete, as the number `resume_phase` has always held (null for letter ids). */
function firstIncompletePhase(run: PlanRunReport): number | undefined {
  const first = run.phases.find((p) => p.state !== "settled" && p.record?.verdict.kind !== "complete");
  const value = first ? Number.parseFloat(first.id) : Number.NaN;
  return Number.isFinite(value) ? value : undefined;
}
