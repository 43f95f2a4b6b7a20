import { plannedArtifact } from "../../agents/index.js";
import { mutateStore, requireTask } from "../../state/index.js";
import { GATE_IN, type GateInContext, type GateInStep, gateIn } from "../gate-in/index.js";
import type { RunEvent } from "../transition.js";
import type { DriveContext } from "./drive-context.js";

/** The GATE IN effect: each step in order, then the one store write that opens the run. */
export async function runGateIn(
  ctx: DriveContext,
  steps: readonly GateInStep[] = GATE_IN,
): Promise<RunEvent> {
  const { run, driven } = ctx;
  const gate: GateInContext = { run, baseline: null };
  for (const step of steps) {
    const result = await step(gate);
    if (!result.ok) return { type: "gate_in_refused", message: result.message, code: result.code };
  }
  const verdict = await mutateStore(run.ctx, { command: ctx.command }, (tx) => {
    const result = gateIn(tx, {
      baseline: gate.baseline,
      taskNumber: run.taskNumber,
      operation: run.operation,
      sessionId: run.sessionId,
      force: run.force,
      mode: run.mode,
      claudeSessionId: run.claudeSessionId,
      agent: run.route.agent.name,
    });
    if (result.ok) {
      const task = requireTask(tx, run.taskNumber);
      driven.status = task.status;
      driven.artifactPath = plannedArtifact(run.config, run.ctx.paths.dir, task, run.operation).recordedPath;
    }
    return result;
  });
  return verdict.ok ? { type: "gate_in_passed" } : { type: "gate_in_refused", message: verdict.reason };
}
