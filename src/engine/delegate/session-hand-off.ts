import {
  appendDelegationEvents,
  emptyDelegationView,
  observeFolders,
  readDelegation,
} from "../../state/index.js";
import { checkRunResult } from "../gate-out/index.js";
import { type Run, runPrompt } from "../run/index.js";
import type { Delegation } from "./delegation.js";
import { openRunMarker } from "./delegation.js";

/**
 * DELEGATE in a live session: the marker is opened and the model, not Baton, invokes the agent. The
 * task folder's files as they are now are the delegation's baseline; from here on the hooks record who
 * changes what, and GATE OUT accepts only what the delegated sub-agent wrote (and honours its
 * TASK_ERROR, read from how it stopped).
 */
export const sessionHandOff: Delegation = {
  sandbox: () => "session",
  async delegate(run, artifactPath) {
    await openRunMarker(
      run,
      `Postflight pending: run baton gate-out ${run.operation} ${run.taskNumber} --session ${run.sessionId}`,
    );
    const internal = run.ctx.paths.internalDir;
    const at = new Date().toISOString();
    const baseline = observeFolders(
      run.config.root,
      [run.folder],
      emptyDelegationView(),
      "baseline",
      "gate-in",
      at,
    );
    // The prompt gate-in tells the model to pass on: a delegation call that leaves it out (a paraphrase)
    // gets it added by PreToolUse, so binding never rests on the model copying the session id.
    const prompt = {
      type: "prompt" as const,
      at,
      agentType: run.route.agent.name,
      text: runPrompt(run, artifactPath),
    };
    appendDelegationEvents(internal, run.sessionId, [prompt, ...baseline]);
    return null;
  },
  check(run: Run, agentOutput: string) {
    const view = readDelegation(run.ctx.paths.internalDir, run.sessionId);
    const output = [view.stopOutput, agentOutput].filter(Boolean).join("\n");
    return checkRunResult(run, output, { view, agent: run.route.agent.name });
  },
};
