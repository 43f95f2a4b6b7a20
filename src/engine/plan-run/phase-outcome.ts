import type { PhaseId } from "../../plan/index.js";
import type {
  IterationRefusal,
  PartialReason,
  PhaseOutcome,
  PhaseState,
  PhaseVerdict,
  PlanEffect,
  PlanRunEvent,
  PlanRunState,
} from "./plan-run-types.js";

/** Whitespace differences are not progress: "Lemma 3 open" and "Lemma 3  open\n" are the same remaining work. */
export function normaliseRemaining(text: string): string {
  return text.trim().replace(/\s+/g, " ");
}

export function withPhase(state: PlanRunState, id: PhaseId, phase: PhaseState): PlanRunState {
  return { ...state, phases: { ...state.phases, [id]: phase } };
}

export function finishPhase(state: PlanRunState, id: PhaseId, verdict: PhaseVerdict): PlanRunState {
  return withPhase(state, id, { status: "finished", verdict });
}

const STORY_LINES = 12;

/**
 * A phase's verdict with its refused iterations: what made each one fail (a check's command, exit code and
 * last lines among them) stays in the report, however the last iteration ended.
 */
function withStory(verdict: PhaseVerdict, refusals: readonly IterationRefusal[] | undefined): PhaseVerdict {
  if (!refusals || refusals.length === 0 || verdict.kind === "dependency_blocked") return verdict;
  if (verdict.kind === "complete") return verdict;
  const story = refusals
    .map((r) => {
      const lines = r.message.split("\n");
      const shown = lines.slice(0, STORY_LINES).join("\n    ");
      const more = lines.length > STORY_LINES ? `\n    … ${lines.length - STORY_LINES} more line(s)` : "";
      return `  iteration ${r.iteration} refused: ${r.code}: ${shown}${more}`;
    })
    .join("\n");
  return { ...verdict, message: `${verdict.message}\nEarlier iterations:\n${story}`, earlier: [...refusals] };
}

/**
 * What one call of a phase decides: the phase finished (its verdict; the caller advances the plan), or it
 * runs again (the next iteration, with what it must do), the state and effect returned as they are.
 */
export function settlePhaseRun(
  state: PlanRunState,
  event: Extract<PlanRunEvent, { type: "phase_ran" }>,
): PlanRunState | [PlanRunState, PlanEffect[]] {
  const phase = state.phases[event.id];
  if (phase?.status !== "running") return [state, []];
  const { outcome } = event;
  const iterations = phase.iteration;
  const story = (verdict: PhaseVerdict) => withStory(verdict, phase.refusals);
  if (outcome.kind === "complete")
    return finishPhase(state, event.id, story({ kind: "complete", iterations }));
  if (outcome.kind === "retry") return retryPhase(state, event.id, phase, outcome);
  if (outcome.kind === "blocked" || outcome.kind === "failed") {
    const { kind, code, message } = outcome;
    return finishPhase(state, event.id, story({ kind, code, message, iterations }));
  }
  return continuePhase(state, event.id, phase, outcome.remaining);
}

/** A call the barrier refused: called again with the refusal, unless the iterations are spent or the run stops. */
function retryPhase(
  state: PlanRunState,
  id: PhaseId,
  phase: Extract<PhaseState, { status: "running" }>,
  outcome: Extract<PhaseOutcome, { kind: "retry" }>,
): PlanRunState | [PlanRunState, PlanEffect[]] {
  const iterations = phase.iteration;
  if (iterations >= state.maxIterations || state.stopping) {
    const after = `after ${iterations} iteration${iterations === 1 ? "" : "s"}`;
    const verdict: PhaseVerdict = {
      kind: "failed",
      code: outcome.code,
      message: `${outcome.message}\n(${after}${state.stopping ? ", stopped" : ", the maximum"})`,
      iterations,
    };
    return finishPhase(state, id, withStory(verdict, phase.refusals));
  }
  const iteration = iterations + 1;
  const continuation = `The previous iteration was refused; fix this and finish the phase:\n${outcome.message}`;
  const next = withPhase(state, id, {
    status: "running",
    iteration,
    remaining: phase.remaining,
    unchanged: 0,
    refusals: [
      ...(phase.refusals ?? []),
      { iteration: iterations, code: outcome.code, message: outcome.message },
    ],
  });
  return [next, [{ type: "run_phase", id, iteration, continuation }]];
}

/** A call that left work: called again with it, unless it is stuck, the iterations are spent or the run stops. */
function continuePhase(
  state: PlanRunState,
  id: PhaseId,
  phase: Extract<PhaseState, { status: "running" }>,
  reported: string,
): PlanRunState | [PlanRunState, PlanEffect[]] {
  const iterations = phase.iteration;
  const remaining = normaliseRemaining(reported);
  const unchanged = phase.remaining === remaining ? phase.unchanged + 1 : 0;
  const partial = (reason: PartialReason, message: string) =>
    finishPhase(state, id, withStory({ kind: "partial", reason, message, iterations }, phase.refusals));
  if (unchanged >= 2) {
    return partial(
      "stuck",
      `stuck: the remaining work was reported unchanged ${unchanged + 1} times in a row: ${remaining}`,
    );
  }
  if (iterations >= state.maxIterations) {
    return partial(
      "max_iterations",
      `work remains after ${iterations} iteration${iterations === 1 ? "" : "s"} (the maximum): ${remaining}`,
    );
  }
  if (state.stopping)
    return partial("stopped", `stopped after iteration ${iterations}; remaining: ${remaining}`);
  const iteration = iterations + 1;
  const next = withPhase(state, id, {
    status: "running",
    iteration,
    remaining,
    unchanged,
    ...(phase.refusals ? { refusals: phase.refusals } : {}),
  });
  return [next, [{ type: "run_phase", id, iteration, continuation: remaining }]];
}
