import type { RunnerEvent } from "../runners/index.js";
import type { PlanProgressEvent } from "./plan-run/index.js";

/** What a run reports as it goes: engine checkpoints, the runner's own events, and a plan run's waves and phases. */
export type ProgressEvent =
  | {
      type: "checkpoint";
      step: string;
      phase: "begin" | "end";
      ok?: boolean;
      /** A refusal's code and message. */
      code?: string;
      message?: string;
    }
  | { type: "runner"; event: RunnerEvent }
  | { type: "plan"; event: PlanProgressEvent };
