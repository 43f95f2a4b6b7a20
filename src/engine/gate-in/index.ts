import { plannedArtifact } from "../../agents/index.js";
import { mutateStore, requireTask } from "../../state/index.js";
import type { DriveContext } from "../drive-context.js";
import type { RunEvent } from "../transition.js";
import type { GateInContext, GateInStep } from "./gate-in-step.js";
import { gateIn } from "./open-run.js";
import { refuseForeignFolder } from "./refuse-foreign-folder.js";
import { refuseForgedSessionCommit } from "./refuse-forged-session-commit.js";
import { refuseGitOperation } from "./refuse-git-operation.js";
import { refuseLongFocus } from "./refuse-long-focus.js";
import { refuseStaleIndexLock } from "./refuse-stale-index-lock.js";
import { requireApproval } from "./require-approval.js";
import { requireSandbox } from "./require-sandbox.js";
import { requireSigningKey } from "./require-signing-key.js";
import { requireWritable } from "./require-writable.js";
import { takeBaseline } from "./take-baseline.js";

export { changedSince, readBaseline, staleIndexLock } from "../run/work-tree-baseline.js";
export { decideGateIn, type GateInDecision, readGateIn } from "./decide-gate-in.js";
export type { GateInContext, GateInRefusalCode, GateInStep, GateInStepResult } from "./gate-in-step.js";
export { type GateInVerdict, gateIn } from "./open-run.js";
export { MAX_FOCUS_BYTES } from "./refuse-long-focus.js";

/**
 * GATE IN, in order: the steps before anything is written, then one store write that checks the
 * lifecycle table and the open checkpoint and writes the in-progress status, the session id and the
 * checkpoint together. A new check is a new file and one line here.
 */
export const GATE_IN: readonly GateInStep[] = [
  refuseLongFocus,
  requireApproval,
  requireSandbox,
  requireSigningKey,
  requireWritable,
  refuseStaleIndexLock,
  refuseGitOperation,
  refuseForgedSessionCommit,
  refuseForeignFolder,
  takeBaseline,
];

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
