import type { PhaseId } from "../../plan/index.js";

/**
 * The phase scheduler as a pure state machine: `phaseTransition(state, event)` returns the next state
 * and the effects to perform. Waves are hard barriers: wave k+1 starts only when every phase of wave k
 * has been recorded. Inside a wave at most `concurrency` agents run at once. A phase that does not
 * complete blocks its dependents; independent phases go on.
 */

/** How one call of a phase agent ended, once the hard barrier has looked at it. */
export type PhaseOutcome =
  | { kind: "complete" }
  /** The agent verified its partial work and says what is left: the phase is called again. */
  | { kind: "remaining"; remaining: string }
  | { kind: "blocked"; code: string; message: string }
  | { kind: "failed"; code: string; message: string }
  /** Refused for a reason the agent can fix (a failing check): called again with it, while iterations last. */
  | { kind: "retry"; code: string; message: string };

/** What is recorded for a phase that ran, or that could not run. */
export type PhaseVerdict =
  | { kind: "complete"; iterations: number }
  | { kind: "partial"; reason: "stuck" | "max_iterations" | "stopped"; message: string; iterations: number }
  | { kind: "blocked"; code: string; message: string; iterations: number }
  | { kind: "failed"; code: string; message: string; iterations: number }
  | { kind: "dependency_blocked"; dependency: PhaseId; message: string };

export type PhaseState =
  | { status: "pending" }
  | { status: "running"; iteration: number; remaining: string | null; unchanged: number }
  /** Ran (or could not run); its record effect is not emitted yet. */
  | { status: "finished"; verdict: PhaseVerdict }
  | { status: "recording"; verdict: PhaseVerdict }
  | { status: "recorded"; verdict: PhaseVerdict }
  /** Complete (or otherwise settled) before this run: never run again. */
  | { status: "settled" };

export interface PhaseSpec {
  id: PhaseId;
  name: string;
  dependencies: PhaseId[];
  settled: boolean;
}

export interface PlanRunState {
  order: PhaseId[];
  specs: Record<PhaseId, PhaseSpec>;
  phases: Record<PhaseId, PhaseState>;
  waves: PhaseId[][];
  /** Index of the wave in progress; `waves.length` once finished. */
  wave: number;
  concurrency: number;
  maxIterations: number;
  /** Record finished phases in plan order within a wave (worktrees are merged back in phase order). */
  orderedRecords: boolean;
  stopping: boolean;
  finished: boolean;
}

export type PlanRunEvent =
  | { type: "start" }
  | { type: "phase_ran"; id: PhaseId; outcome: PhaseOutcome }
  | { type: "phase_recorded"; id: PhaseId; verdict?: PhaseVerdict }
  /** Abort: no new phase or iteration starts; running ones end through their own outcome. */
  | { type: "stop"; message: string };

export type PlanRunOutcome = "done" | "partial" | "failed";

export type PlanEffect =
  | { type: "wave_started"; wave: number; phases: PhaseId[] }
  | { type: "run_phase"; id: PhaseId; iteration: number; continuation: string | null }
  | { type: "record_phase"; id: PhaseId; verdict: PhaseVerdict }
  | { type: "wave_finished"; wave: number }
  | { type: "plan_finished"; outcome: PlanRunOutcome };

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

/** Whitespace differences are not progress: "Lemma 3 open" and "Lemma 3  open\n" are the same remaining work. */
export function normaliseRemaining(text: string): string {
  return text.trim().replace(/\s+/g, " ");
}

function isComplete(state: PhaseState | undefined): boolean {
  if (!state) return false;
  if (state.status === "settled") return true;
  return state.status === "recorded" && state.verdict.kind === "complete";
}

function runningCount(state: PlanRunState): number {
  return Object.values(state.phases).filter((p) => p.status === "running").length;
}

function withPhase(state: PlanRunState, id: PhaseId, phase: PhaseState): PlanRunState {
  return { ...state, phases: { ...state.phases, [id]: phase } };
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

function finishPhase(state: PlanRunState, id: PhaseId, verdict: PhaseVerdict): PlanRunState {
  return withPhase(state, id, { status: "finished", verdict });
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
      const phase = state.phases[event.id];
      if (phase?.status !== "running") return [state, []];
      const outcome = event.outcome;
      const iterations = phase.iteration;
      let next: PlanRunState;
      if (outcome.kind === "complete") {
        next = finishPhase(state, event.id, { kind: "complete", iterations });
      } else if (outcome.kind === "retry") {
        if (iterations >= state.maxIterations || state.stopping) {
          const after = `after ${iterations} iteration${iterations === 1 ? "" : "s"}`;
          next = finishPhase(state, event.id, {
            kind: "failed",
            code: outcome.code,
            message: `${outcome.message}\n(${after}${state.stopping ? ", stopped" : ", the maximum"})`,
            iterations,
          });
        } else {
          const iteration = iterations + 1;
          const continuation = `The previous iteration was refused; fix this and finish the phase:\n${outcome.message}`;
          next = withPhase(state, event.id, {
            status: "running",
            iteration,
            remaining: phase.remaining,
            unchanged: 0,
          });
          return [next, [{ type: "run_phase", id: event.id, iteration, continuation }]];
        }
      } else if (outcome.kind === "blocked" || outcome.kind === "failed") {
        next = finishPhase(state, event.id, {
          kind: outcome.kind,
          code: outcome.code,
          message: outcome.message,
          iterations,
        });
      } else {
        const remaining = normaliseRemaining(outcome.remaining);
        const unchanged = phase.remaining === remaining ? phase.unchanged + 1 : 0;
        if (unchanged >= 2) {
          next = finishPhase(state, event.id, {
            kind: "partial",
            reason: "stuck",
            message: `stuck: the remaining work was reported unchanged ${unchanged + 1} times in a row: ${remaining}`,
            iterations,
          });
        } else if (iterations >= state.maxIterations) {
          next = finishPhase(state, event.id, {
            kind: "partial",
            reason: "max_iterations",
            message: `work remains after ${iterations} iteration${iterations === 1 ? "" : "s"} (the maximum): ${remaining}`,
            iterations,
          });
        } else if (state.stopping) {
          next = finishPhase(state, event.id, {
            kind: "partial",
            reason: "stopped",
            message: `stopped after iteration ${iterations}; remaining: ${remaining}`,
            iterations,
          });
        } else {
          const iteration = iterations + 1;
          next = withPhase(state, event.id, { status: "running", iteration, remaining, unchanged });
          return [next, [{ type: "run_phase", id: event.id, iteration, continuation: remaining }]];
        }
      }
      return advance(next);
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
