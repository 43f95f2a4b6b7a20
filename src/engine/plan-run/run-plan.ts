import { readFileSync } from "node:fs";
import { type PlanOutcome, parsePlan, planStatusMarker, setPlanStatus } from "../../plan/index.js";
import { mutateStore } from "../../state/index.js";
import { isSettled } from "../run/index.js";
import { PhaseRuns } from "./phase-runs.js";
import {
  initialPlanRun,
  type PhaseOutcome,
  type PhaseVerdict,
  type PlanEffect,
  type PlanRunEvent,
  type PlanRunOutcome,
  type PlanRunState,
  phaseTransition,
} from "./phase-transition.js";
import type { PhaseReport, PlanRunInput, PlanRunReport } from "./plan-run-types.js";

export type { PhaseReport, PlanProgressEvent, PlanRunInput, PlanRunReport } from "./plan-run-types.js";

async function writePlanStatus(input: PlanRunInput, outcome: PlanOutcome) {
  const { run } = input;
  const { planPath, plan } = run.plan;
  await mutateStore(run.ctx, { command: `baton implement ${run.taskNumber}` }, (tx) => {
    const edited = setPlanStatus(readFileSync(planPath, "utf8"), planStatusMarker(plan.style, outcome));
    if (edited.changed) tx.writeFile(planPath, edited.text);
  });
}

/** The plan's Status line as it was when the run was prepared (a plan without one stays without). */
async function restorePlanStatus(input: PlanRunInput) {
  const { run } = input;
  const { planPath, plan } = run.plan;
  const before = plan.status?.marker.split(/\s+-\s+/)[0]?.trim();
  if (before === undefined || !/^[A-Z][A-Z _-]*$/.test(before)) return;
  await mutateStore(run.ctx, { command: `baton implement ${run.taskNumber}` }, (tx) => {
    const edited = setPlanStatus(readFileSync(planPath, "utf8"), before);
    if (edited.changed) tx.writeFile(planPath, edited.text);
  });
}

const failedBy = (error: unknown): Extract<PhaseOutcome, { kind: "failed" }> => ({
  kind: "failed",
  code: "PHASE_ERROR",
  message: error instanceof Error ? error.message : String(error),
});

/** Drives the phase scheduler: performs each effect it asks for and feeds back what happened. */
function drivePlan(input: PlanRunInput, phases: PhaseRuns, start: PlanRunState): Promise<PlanRunOutcome> {
  const { prepared, journal, emit, budget, signal } = { ...input, prepared: input.run.plan };
  let state = start;
  return new Promise<PlanRunOutcome>((resolve) => {
    const dispatch = (event: PlanRunEvent) => {
      const [next, effects] = phaseTransition(state, event);
      state = next;
      for (const effect of effects) perform(effect);
    };
    const perform = (effect: PlanEffect) => {
      if (effect.type === "plan_finished") return resolve(effect.outcome);
      if (effect.type === "run_phase") {
        void phases
          .call(effect.id, effect.iteration, effect.continuation)
          .catch(failedBy)
          .then((outcome) => {
            // Before the machine schedules more: no phase or iteration starts that would cross a budget.
            if (budget?.active && budget.mayStart()) dispatch({ type: "stop", message: "budget" });
            dispatch({ type: "phase_ran", id: effect.id, outcome });
          });
        return;
      }
      if (effect.type === "record_phase") {
        void phases
          .record(effect.id, effect.verdict)
          .catch(
            (error: unknown): PhaseVerdict => ({ ...failedBy(error), code: "RECORD_FAILED", iterations: 1 }),
          )
          .then((verdict) => dispatch({ type: "phase_recorded", id: effect.id, verdict }));
        return;
      }
      const begin = effect.type === "wave_started";
      journal.append({ step: "WAVE", phase: begin ? "begin" : "end", detail: { wave: effect.wave + 1 } });
      const waveIds = begin ? effect.phases : (prepared.waves[effect.wave] ?? []);
      const event = begin ? "started" : state.stopping ? "stopped" : "finished";
      emit({ type: "wave", wave: effect.wave, total: prepared.waves.length, phases: waveIds, event });
    };
    if (signal.aborted) state = { ...state, stopping: true };
    else
      signal.addEventListener("abort", () => dispatch({ type: "stop", message: "aborted" }), { once: true });
    dispatch({ type: "start" });
  });
}

/**
 * The phases of the plan file as it now stands that this run did not see completed: each must have been
 * settled before the run or completed by a verified barrier in it, and be marked so in the file. A phase
 * added to the plan during the run, a heading read differently now, or a marker that says otherwise keeps
 * the task from completing (an empty list: the plan is done).
 */
function unfinishedInFile(planPath: string, reports: readonly PhaseReport[]): string[] {
  let text: string;
  try {
    text = readFileSync(planPath, "utf8");
  } catch {
    return ["(the plan file cannot be read)"];
  }
  const parsed = parsePlan(planPath, text);
  if (!parsed.ok) return parsed.problems.map((p) => `line ${p.line}: ${p.message}`);
  const verified = new Set(
    reports.filter((r) => r.state === "settled" || r.record?.verdict.kind === "complete").map((r) => r.id),
  );
  return parsed.plan.phases
    .filter((phase) => !isSettled(phase) || (!phase.carried && !verified.has(phase.id)))
    .map(
      (phase) => `Phase ${phase.id}${phase.name ? `: ${phase.name}` : ""} [${phase.marker ?? "no marker"}]`,
    );
}

/**
 * Runs a plan's phases through the scheduler: waves behind hard barriers, up to `concurrency` agents
 * at once, each call verified by the hard barrier and each verdict recorded (marker, checkboxes,
 * commit) before the next wave starts.
 */
export async function runPlan(input: PlanRunInput): Promise<PlanRunReport> {
  const prepared = input.run.plan;
  const phases = new PhaseRuns(input);
  await writePlanStatus(input, "in_progress");
  const start = initialPlanRun({
    phases: prepared.plan.phases.map((p) => ({
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
  const ran = await drivePlan(input, phases, start);
  const report = phases.report();
  const unfinished = ran === "done" ? unfinishedInFile(prepared.planPath, report.phases) : [];
  const outcome: PlanRunOutcome = unfinished.length > 0 ? "partial" : ran;
  // Stopped (Ctrl-C, SIGTERM) before anything was done: nothing blocks the plan, so its status goes back to
  // what it said before the run; with phases done it is partial.
  if (input.signal.aborted && outcome === "failed") await restorePlanStatus(input);
  else
    await writePlanStatus(
      input,
      outcome === "done" ? "complete" : outcome === "partial" || input.signal.aborted ? "partial" : "blocked",
    );
  return { outcome, waves: prepared.waves, ...report, ...(unfinished.length > 0 ? { unfinished } : {}) };
}
