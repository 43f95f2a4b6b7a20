import { readFileSync, rmSync } from "node:fs";
import { join, relative } from "node:path";
import type { Route } from "../../agents/index.js";
import type { BatonConfig } from "../../config/index.js";
import { type PhaseId, planStatusMarker, setPhaseMarker, setPlanStatus } from "../../plan/index.js";
import {
  addUsage,
  type DelegationContext,
  type Runner,
  type RunnerEvent,
  type RunUsage,
} from "../../runners/index.js";
import { type GitBaseline, mutateStore, type StoreContext, storePrefix } from "../../state/index.js";
import type { BudgetGuard } from "../delegate/budget-guard.js";
import { readBaseline } from "../gate-in/work-tree-baseline.js";
import type { VerifiedArtifact } from "../gate-out/gate-types.js";
import { checksFor } from "../gate-out/project-checks.js";
import type { SessionJournal } from "../session-journal.js";
import { callPhase, phaseMetadataName } from "./phase-call.js";
import {
  initialPlanRun,
  type PhaseOutcome,
  type PhaseVerdict,
  type PlanEffect,
  type PlanRunEvent,
  type PlanRunOutcome,
  phaseTransition,
} from "./phase-transition.js";
import { createPhaseWorktree, headSha, type PhaseWorktree } from "./phase-worktree.js";
import type { PreparedPlan } from "./prepare-plan.js";
import { type PhaseEvidence, type PhaseRecord, recordPhase } from "./record-phase.js";

export type PlanProgressEvent =
  | { type: "wave"; wave: number; total: number; phases: PhaseId[]; event: "started" | "finished" }
  | { type: "phase_started"; id: PhaseId; name: string; wave: number; iteration: number; agent: string }
  | { type: "phase_recorded"; id: PhaseId; name: string; wave: number; record: PhaseRecord }
  | { type: "phase_runner"; id: PhaseId; event: RunnerEvent };

export interface PlanRunInput {
  config: BatonConfig;
  ctx: StoreContext;
  prepared: PreparedPlan;
  taskNumber: number;
  /** The task's language: which configured checks apply. */
  language: string;
  title: string;
  /** The task folder relative to the repository root. */
  taskFolder: string;
  sessionId: string;
  delegationPath: string[];
  baseContext: DelegationContext;
  runner: Runner;
  journal: SessionJournal;
  concurrency: number;
  maxIterations: number;
  isolate: "none" | "worktree";
  commit: boolean;
  signal: AbortSignal;
  /** Checked before each agent run and on its streamed cost; a stop ends the run resumable. */
  budget?: BudgetGuard | undefined;
  emit: (event: PlanProgressEvent) => void;
}

export interface PhaseReport {
  id: PhaseId;
  name: string;
  wave: number;
  agent: string | null;
  routeReason: string | null;
  /** `settled`: complete (or skipped) before this run; `not_run`: the run stopped before it. */
  state: "settled" | "not_run" | "recorded";
  record?: PhaseRecord;
}

export interface PlanRunReport {
  outcome: PlanRunOutcome;
  waves: PhaseId[][];
  phases: PhaseReport[];
  /** Summaries of the phases completed in this run, as artifacts to link. */
  summaries: VerifiedArtifact[];
  completionSummaries: string[];
  usage: RunUsage | undefined;
}

async function writePlanStatus(
  input: PlanRunInput,
  outcome: "in_progress" | "complete" | "partial" | "blocked",
) {
  const { planPath, plan } = input.prepared;
  await mutateStore(input.ctx, { command: `baton implement ${input.taskNumber}` }, (tx) => {
    const edited = setPlanStatus(readFileSync(planPath, "utf8"), planStatusMarker(plan.style, outcome));
    if (edited.changed) tx.writeFile(planPath, edited.text);
  });
}

/**
 * [IN PROGRESS] markers for phases that start together, written in one store write: a wave's phases
 * start in the same tick, and one write per phase would queue them behind the lock one by one.
 */
function markerBatch(input: PlanRunInput): (id: PhaseId) => Promise<void> {
  let pending: { ids: PhaseId[]; done: Promise<void> } | null = null;
  return (id) => {
    if (!pending) {
      const batch: { ids: PhaseId[]; done: Promise<void> } = { ids: [], done: Promise.resolve() };
      batch.done = new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
        pending = null;
        return mutateStore(input.ctx, { command: `baton implement ${input.taskNumber}` }, (tx) => {
          let text = readFileSync(input.prepared.planPath, "utf8");
          for (const phaseId of batch.ids) {
            const edited = setPhaseMarker(text, phaseId, "IN PROGRESS");
            if (edited.ok) text = edited.text;
          }
          tx.writeFile(input.prepared.planPath, text);
        });
      });
      pending = batch;
    }
    pending.ids.push(id);
    return pending.done;
  };
}

/**
 * Runs a plan's phases through the scheduler: waves behind hard barriers, up to `concurrency` agents
 * at once, each call verified by the hard barrier and each verdict recorded (marker, checkboxes,
 * commit) before the next wave starts.
 */
export async function runPlan(input: PlanRunInput): Promise<PlanRunReport> {
  const { prepared, config } = input;
  const { plan } = prepared;
  const waveOf = new Map<PhaseId, number>();
  prepared.waves.forEach((ids, k) => {
    for (const id of ids) waveOf.set(id, k);
  });
  const reports = new Map<PhaseId, PhaseReport>();
  for (const phase of plan.phases) {
    if (reports.has(phase.id)) continue;
    const route = prepared.routes.get(phase.id);
    reports.set(phase.id, {
      id: phase.id,
      name: phase.name,
      wave: waveOf.get(phase.id) ?? 0,
      agent: route?.agent.name ?? null,
      routeReason: route ? `${prepared.routeReasons.get(phase.id)}; ${route.reason}` : null,
      state: prepared.settled.has(phase.id) ? "settled" : "not_run",
    });
  }
  const worktrees = new Map<PhaseId, PhaseWorktree>();
  const filesChanged = new Map<PhaseId, string[]>();
  const evidence = new Map<PhaseId, PhaseEvidence>();
  const summaries: VerifiedArtifact[] = [];
  const completionSummaries: string[] = [];
  let usage: RunUsage | undefined;

  await writePlanStatus(input, "in_progress");
  const markStarted = markerBatch(input);
  const baselines = new Map<PhaseId, GitBaseline | null>();

  const callOnce = async (
    id: PhaseId,
    iteration: number,
    continuation: string | null,
  ): Promise<PhaseOutcome> => {
    const phase = plan.phases.find((p) => p.id === id && !p.carried)!;
    const route = prepared.routes.get(id) as Route;
    // The marker is written while the agent starts; the journal (written first) is what recovery reads.
    let marked: Promise<void> = Promise.resolve();
    if (iteration === 1) {
      input.journal.begin("PHASE", { phase: id, previousMarker: phase.marker });
      marked = markStarted(id);
      if (input.isolate === "worktree") {
        const created = await createPhaseWorktree({
          root: config.root,
          sessionId: input.sessionId,
          phaseId: id,
          base: await headSha(config.root),
        });
        if (!created.ok) return { kind: "failed", code: "WORKTREE_CREATE", message: created.reason };
        worktrees.set(id, created.worktree);
      }
      baselines.set(id, await readBaseline(worktrees.get(id)?.path ?? config.root));
    }
    const budget = input.budget;
    const overBudget = new AbortController();
    const key = `${id}#${iteration}`;
    input.emit({
      type: "phase_started",
      id,
      name: phase.name,
      wave: waveOf.get(id) ?? 0,
      iteration,
      agent: route.agent.name,
    });
    const result = await callPhase({
      phase,
      plan,
      planLines: prepared.lines,
      iteration,
      continuation,
      route,
      baseContext: input.baseContext,
      title: input.title,
      workRoot: worktrees.get(id)?.path ?? config.root,
      taskFolder: input.taskFolder,
      storePrefix: storePrefix(config.root, input.ctx.paths.dir),
      checks: checksFor(config, input.language, "phase"),
      baseline: baselines.get(id) ?? null,
      sessionId: input.sessionId,
      minSummaryBytes: config.phases.minSummaryBytes,
      runner: input.runner,
      signal: budget?.active ? AbortSignal.any([input.signal, overBudget.signal]) : input.signal,
      timeoutMs: config.timeoutsMs.implement,
      onEvent: (event) => {
        if (event.type === "usage" && budget?.onUsage(key, event.usage)) overBudget.abort();
        if (event.type === "started") {
          input.journal.append({ step: "AGENT", phase: "begin", detail: { agentPid: event.pid, phase: id } });
        } else if (event.type === "finished") {
          input.journal.append({ step: "AGENT", phase: "end", ok: event.ok, detail: { phase: id } });
        }
        input.emit({ type: "phase_runner", id, event });
      },
    });
    await marked;
    usage = addUsage(usage, result.usage);
    budget?.finished(key, result.usage);
    // Stopped by the budget mid-way: not a failure of the phase, which the next run picks up again.
    if (overBudget.signal.aborted && !input.signal.aborted) {
      return { kind: "remaining", remaining: `stopped by the budget: ${budget?.stopped?.message ?? ""}` };
    }
    if (result.metadata?.files_changed) {
      filesChanged.set(id, [...new Set([...(filesChanged.get(id) ?? []), ...result.metadata.files_changed])]);
    }
    if (result.evidence) {
      evidence.set(id, {
        ...result.evidence,
        base: baselines.get(id)?.commit ?? null,
        agent: route.agent.name,
      });
    }
    if (result.outcome.kind === "complete") {
      const completion = result.metadata?.completion_data?.completion_summary;
      if (completion) completionSummaries.push(`Phase ${id}: ${completion}`);
    }
    return result.outcome;
  };

  const record = async (id: PhaseId, verdict: PhaseVerdict): Promise<PhaseVerdict> => {
    const phase = plan.phases.find((p) => p.id === id && !p.carried)!;
    const done = await recordPhase(
      {
        ctx: input.ctx,
        root: config.root,
        plan,
        planPath: prepared.planPath,
        taskFolder: input.taskFolder,
        taskNumber: input.taskNumber,
        sessionId: input.sessionId,
        delegationPath: input.delegationPath,
        commit: input.commit,
      },
      id,
      verdict,
      {
        filesChanged: filesChanged.get(id) ?? [],
        evidence: evidence.get(id),
        worktree: worktrees.get(id) ?? null,
        previousMarker: phase.marker,
      },
    );
    rmSync(join(config.root, input.taskFolder, phaseMetadataName(id)), { force: true });
    if (done.verdict.kind === "complete") {
      const summary = join(config.root, input.taskFolder, "summaries", `phase-${id}-summary.md`);
      let bytes = 0;
      try {
        bytes = readFileSync(summary).length;
      } catch {
        // a summary that vanished after the barrier is simply not linked
      }
      if (bytes > 0) {
        summaries.push({
          type: "summary",
          path: relative(config.root, summary),
          bytes,
          summary: `Phase ${id}: ${phase.name}`,
        });
      }
    }
    if (verdict.kind !== "dependency_blocked") {
      input.journal.end("PHASE", done.verdict.kind === "complete", {
        phase: id,
        verdict: done.verdict.kind,
        marker: done.marker,
      });
    }
    const report = reports.get(id)!;
    report.state = "recorded";
    report.record = done;
    input.emit({ type: "phase_recorded", id, name: phase.name, wave: waveOf.get(id) ?? 0, record: done });
    return done.verdict;
  };

  let state = initialPlanRun({
    phases: plan.phases.map((p) => ({
      id: p.id,
      name: p.name,
      dependencies: p.dependencies,
      settled: prepared.settled.has(p.id),
    })),
    waves: prepared.waves,
    concurrency: input.concurrency,
    maxIterations: input.maxIterations,
    orderedRecords: input.isolate === "worktree",
  });

  const outcome = await new Promise<PlanRunOutcome>((resolve) => {
    const dispatch = (event: PlanRunEvent) => {
      const [next, effects] = phaseTransition(state, event);
      state = next;
      for (const effect of effects) perform(effect);
    };
    const fail = (error: unknown): PhaseOutcome => ({
      kind: "failed",
      code: "PHASE_ERROR",
      message: error instanceof Error ? error.message : String(error),
    });
    const perform = (effect: PlanEffect) => {
      switch (effect.type) {
        case "wave_started":
        case "wave_finished":
          input.journal.append({
            step: "WAVE",
            phase: effect.type === "wave_started" ? "begin" : "end",
            detail: { wave: effect.wave + 1 },
          });
          input.emit({
            type: "wave",
            wave: effect.wave,
            total: prepared.waves.length,
            phases: effect.type === "wave_started" ? effect.phases : (prepared.waves[effect.wave] ?? []),
            event: effect.type === "wave_started" ? "started" : "finished",
          });
          return;
        case "run_phase":
          callOnce(effect.id, effect.iteration, effect.continuation)
            .catch(fail)
            .then((outcome) => {
              // Before the machine schedules more: no phase or iteration starts that would cross a budget.
              if (input.budget?.active && input.budget.mayStart())
                dispatch({ type: "stop", message: "budget" });
              dispatch({ type: "phase_ran", id: effect.id, outcome });
            });
          return;
        case "record_phase":
          record(effect.id, effect.verdict)
            .catch((error: unknown): PhaseVerdict => {
              const failed = fail(error) as Extract<PhaseOutcome, { kind: "failed" }>;
              return { ...failed, code: "RECORD_FAILED", iterations: 1 };
            })
            .then((verdict) => dispatch({ type: "phase_recorded", id: effect.id, verdict }));
          return;
        case "plan_finished":
          resolve(effect.outcome);
          return;
      }
    };
    if (input.signal.aborted) state = { ...state, stopping: true };
    else
      input.signal.addEventListener("abort", () => dispatch({ type: "stop", message: "aborted" }), {
        once: true,
      });
    dispatch({ type: "start" });
  });

  await writePlanStatus(
    input,
    outcome === "done" ? "complete" : outcome === "partial" ? "partial" : "blocked",
  );
  return {
    outcome,
    waves: prepared.waves,
    phases: [...reports.values()],
    summaries,
    completionSummaries,
    usage,
  };
}
