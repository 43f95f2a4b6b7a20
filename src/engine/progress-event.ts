import type { RunnerEvent, RunUsage } from "../runners/index.js";
import type { StepBoundary } from "../shared/run-words.js";
import type { PlanProgressEvent } from "./plan-run/index.js";
import type { RunResult } from "./transition.js";

/**
 * What a run reports as it goes, through one sink (the event stream, then the terminal): engine checkpoints,
 * the runner's own events, a plan run's waves and phases, a budget's verdict, and the run's end.
 */
export type ProgressEvent =
  | {
      type: "checkpoint";
      step: string;
      phase: StepBoundary;
      ok?: boolean;
      /** A refusal's code and message. */
      code?: string;
      message?: string;
    }
  | { type: "runner"; event: RunnerEvent }
  | { type: "plan"; event: PlanProgressEvent }
  /** A budget that refused the run before GATE IN, or stopped its agent. */
  | { type: "budget"; outcome: "refused" | "exceeded"; message: string }
  /** The machine reached a result: sent by the executor once, whichever way the run was driven. */
  | { type: "finished"; result: RunResult; usage: RunUsage | undefined; durationMs: number };
