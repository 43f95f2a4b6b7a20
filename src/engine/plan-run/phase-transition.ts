import type { PhaseId } from "../../plan/index.js";
import { normaliseRemaining, settlePhaseRun, withPhase } from "./phase-outcome.js";
import type { PhaseState, PlanEffect, PlanRunEvent, PlanRunOutcome, PlanRunState } from "./plan-run-types.js";

/**
 * The phase scheduler as a pure state machine: `phaseTransition(state, event)` returns the next state
 * and the effects to perform. Waves are hard barriers: wave k+1 starts only when every phase of wave k
 * has been recorded. Inside a wave at most `concurrency` agents run at once. A phase that does not
 * complete blocks its dependents; independent phases go on.
 */

export type {
  PhaseOutcome,
  PhaseSpec,
  PhaseState,
  PhaseVerdict,
  PlanEffect,
  PlanRunEvent,
  PlanRunOutcome,
  PlanRunState,
} from "./plan-run-types.js";

import type { PhaseSpec } from "./plan-run-types.js";

export { normaliseRemaining };

export function initialPlanRun(input: {
  phases: PhaseSpec[];
  waves: PhaseId[][];
  concurrency: number;
  maxIterations: number;
  orderedRecords: boolean;
}): PlanRunState {
  const specs: Record<PhaseId, PhaseSpec> = {};
  const phases: Record<PhaseId, PhaseState> = {};
  for (const spec of input.phases) {
    if (specs[spec.id]) continue;
    specs[spec.id] = spec;
    phases[spec.id] = spec.settled ? { status: "settled" } : { status: "pending" };
  }
  return {
    order: Object.keys(specs),
    specs,
    phases,
    waves: input.waves,
    wave: 0,
    concurrency: Math.max(1, input.concurrency),
    maxIterations: Math.max(1, input.maxIterations),
    orderedRecords: input.orderedRecords,
    stopping: false,
    finished: false,
  };
}

function isComplete(state: PhaseState | undefined): boolean {
  if (!state) return false;
  if (state.status === "settled") return true;
  return state.status === "recorded" && state.verdict.kind === "complete";
}

function runningCount(state: PlanRunState): number {
  return Object.values(state.phases).filter((p) => p.status === "running").length;
}

/** Emits record effects for finished phases: all of them, or in ordered mode one at a time in plan order. */
function recordFinished(state: PlanRunState, wave: readonly PhaseId[], effects: PlanEffect[]): PlanRunState {
  let next = state;
  for (const id of wave) {
    const phase = next.phases[id];
    if (!phase || phase.status === "recorded" || phase.status === "settled") continue;
    if (phase.status === "finished") {
      next = withPhase(next, id, { status: "recording", verdict: phase.verdict });
      effects.push({ type: "record_phase", id, verdict: phase.verdict });
    }
    if (next.orderedRecords) break;
  }
  return next;
}

/** Records what is finished, starts what the wave allows, and closes the wave once all is recorded. */
function advance(state: PlanRunState): [PlanRunState, PlanEffect[]] {
  const effects: PlanEffect[] = [];
  let next = state;
  for (;;) {
    if (next.wave >= next.waves.length) {
      if (!next.finished) {
        next = { ...next, finished: true };
        effects.push({ type: "plan_finished", outcome: planOutcome(next) });
      }
      return [next, effects];
    }
    const wave = next.waves[next.wave] ?? [];
    next = recordFinished(next, wave, effects);
    if (!next.stopping) {
      for (const id of wave) {
        if (runningCount(next) >= next.concurrency) break;
        if (next.phases[id]?.status !== "pending") continue;
        next = withPhase(next, id, { status: "running", iteration: 1, remaining: null, unchanged: 0 });
        effects.push({ type: "run_phase", id, iteration: 1, continuation: null });
      }
    }
    const open = wave.some((id) => {
      const status = next.phases[id]?.status;
      return (
        status === "running" ||
        status === "finished" ||
        status === "recording" ||
        (status === "pending" && !next.stopping)
      );
    });
    if (open) return [next, effects];
    effects.push({ type: "wave_finished", wave: next.wave });
    next = { ...next, wave: next.wave + 1 };
    if (next.wave < next.waves.length && !next.stopping) {
      const [blocked, runnable] = blockUnrunnable(next);
      next = blocked;
      effects.push({ type: "wave_started", wave: next.wave, phases: runnable });
    }
  }
}

/**
 * At the start of a wave, a pending phase whose dependency did not complete cannot run: it is
 * finished as dependency-blocked right away (recorded like any other verdict).
 */
function blockUnrunnable(state: PlanRunState): [PlanRunState, PhaseId[]] {
  let next = state;
  const runnable: PhaseId[] = [];
  for (const id of next.waves[next.wave] ?? []) {
    if (next.phases[id]?.status !== "pending") continue;
    const spec = next.specs[id];
    const missing = spec?.dependencies.find((dep) => !isComplete(next.phases[dep]));
    if (missing === undefined) {
      runnable.push(id);
      continue;
    }
    next = withPhase(next, id, {
      status: "finished",
      verdict: {
        kind: "dependency_blocked",
        dependency: missing,
        message: `Phase ${missing} did not complete`,
      },
    });
  }
  return [next, runnable];
}

function planOutcome(state: PlanRunState): PlanRunOutcome {
  const states = state.order.map((id) => state.phases[id]);
  if (states.every((p) => isComplete(p))) return "done";
  const progressed = states.some(
    (p) => p?.status === "recorded" && (p.verdict.kind === "complete" || p.verdict.kind === "partial"),
  );
  return progressed ? "partial" : "failed";
}

export function phaseTransition(state: PlanRunState, event: PlanRunEvent): [PlanRunState, PlanEffect[]] {
  switch (event.type) {
    case "start": {
      const [blocked, runnable] = blockUnrunnable(state);
      const effects: PlanEffect[] = [];
      if (blocked.waves.length > 0) effects.push({ type: "wave_started", wave: 0, phases: runnable });
      const [next, more] = advance(blocked);
      return [next, [...effects, ...more]];
    }
    case "stop": {
      return advance({ ...state, stopping: true });
    }
    case "phase_ran": {
      const settled = settlePhaseRun(state, event);
      return Array.isArray(settled) ? settled : advance(settled);
    }
    case "phase_recorded": {
      const phase = state.phases[event.id];
      if (phase?.status !== "recording") return [state, []];
      // The recorder may downgrade a verdict (a worktree that could not be merged back is not complete).
      return advance(
        withPhase(state, event.id, { status: "recorded", verdict: event.verdict ?? phase.verdict }),
      );
    }
  }
}
