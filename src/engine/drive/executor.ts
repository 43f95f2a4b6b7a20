import { elapsedSince } from "../../shared/index.js";
import type { Delegation } from "../delegate/index.js";
import type { Run } from "../run/index.js";
import { type Effect, type RunEvent, type RunState, transition } from "../transition.js";
import { commitRun } from "./commit-run.js";
import type { DriveContext, Driven, RunIO } from "./drive-context.js";
import { journalStep } from "./journal-step.js";
import { recordFailureStep } from "./record-failure.js";
import { recordVerdict } from "./record-verdict.js";
import { runGateIn } from "./run-gate-in.js";

/** Which checkpoint performs each effect; the executor itself only dispatches. */
function perform(ctx: DriveContext, effect: Effect): Promise<RunEvent | null> | RunEvent | null {
  switch (effect.type) {
    case "journal":
      return journalStep(ctx, effect);
    case "gate_in":
      return runGateIn(ctx);
    case "run_agent":
      return delegateOrFail(ctx);
    case "check_result":
      return ctx.delegation
        .check(ctx.run, effect.output, ctx.driven.artifactPath)
        .then((verdict) => ({ type: "gate_out_checked", verdict }));
    case "record_result":
      return recordVerdict(ctx, effect.verdict);
    case "record_failure":
      return recordFailureStep(ctx, effect);
    case "commit":
      return commitRun(ctx, effect.outcome);
  }
}

/**
 * DELEGATE, with a failure around one agent (a folder Baton cannot make, a file it cannot copy) ending the
 * run as a runner that could not run: recorded, the status put back, rather than a run left open. A plan
 * run's failure stays open for `recover`, which knows which of its phases were committed.
 */
async function delegateOrFail(ctx: DriveContext): Promise<RunEvent | null> {
  try {
    return await ctx.delegation.delegate(ctx.run, ctx.driven.artifactPath);
  } catch (error) {
    if (ctx.run.plan) throw error;
    const message = `DELEGATE failed: ${error instanceof Error ? error.message : String(error)}`;
    return { type: "agent_finished", outcome: { ok: false, reason: "spawn_failed", message, output: "" } };
  }
}

/**
 * The one executor of the checkpoint machine: performs each effect `transition` asks for and feeds
 * back what happened. A headless run drives it from the start; an in-session gate-in drives it until
 * DELEGATE is handed to the model, and gate-out drives it on from the agent's end. The drive that reaches
 * the result reports the run's end, with its usage and its time since the run began.
 */
export async function drive(
  run: Run,
  io: RunIO,
  delegation: Delegation,
  start: { state: RunState; event: RunEvent },
): Promise<Driven> {
  const ctx: DriveContext = {
    run,
    io,
    delegation,
    command: `baton ${run.mode === "session" ? "gate " : ""}${run.operation} ${run.taskNumber}`,
    commitWanted: Boolean(io.commit) && run.config.commit,
    driven: { state: start.state, artifactPath: "", status: undefined },
    held: undefined,
  };
  try {
    let state = start.state;
    const queue: RunEvent[] = [start.event];
    while (queue.length > 0) {
      const [next, effects] = transition(state, queue.shift()!);
      state = next;
      for (const effect of effects) {
        const event = await perform(ctx, effect);
        if (event) queue.push(event);
      }
    }
    ctx.driven.state = state;
    if (state.result) {
      const usage = delegation.usage;
      io.emit?.({ type: "finished", result: state.result, usage, durationMs: elapsedSince(run.began) });
    }
    return ctx.driven;
  } finally {
    ctx.held?.release();
  }
}
