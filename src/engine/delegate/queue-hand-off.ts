import { checkRunResult } from "../gate-out/index.js";
import type { Run } from "../run/index.js";
import type { Delegation } from "./delegation.js";
import { openRunMarker } from "./delegation.js";

/**
 * DELEGATE through the queue: the coordinator opens the marker and a worker runs the agent; what comes
 * back is the worker's commit, so GATE OUT asks for no hook provenance (every other gate holds).
 */
export const queueHandOff: Delegation = {
  sandbox: (run) => run.config.sandbox,
  async delegate(run) {
    await openRunMarker(run, "Postflight pending: the queue's worker delegates; the coordinator records");
    return null;
  },
  check(run: Run, agentOutput: string) {
    return checkRunResult(run, agentOutput);
  },
};
