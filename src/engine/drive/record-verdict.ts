import { writeEvidence } from "../../evidence/index.js";
import { holdStore, keyReachableBy, readOpenCheckpoint, requireTask } from "../../state/index.js";
import type { GateOutVerdict } from "../gate-out/index.js";
import { recordResult, snapshotDelta } from "../gate-out/index.js";
import { closePostflight, evidenceSubject } from "../run/index.js";
import type { RunEvent } from "../transition.js";
import type { DriveContext } from "./drive-context.js";

/**
 * GATE OUT's write after an accepted verdict: the done (or partial) status, the artifacts' links and
 * the evidence, in one store write. The store lock is taken here and held until the commit, so no other
 * writer's change lands under this run's Session trailer.
 */
export async function recordVerdict(
  ctx: DriveContext,
  verdict: Extract<GateOutVerdict, { ok: true }>,
): Promise<RunEvent> {
  const { run, delegation, driven } = ctx;
  driven.verdict = verdict;
  const held = await holdStore(run.ctx, ctx.command);
  ctx.held = held;
  const resumePhase = delegation.resumePhase?.();
  const work = verdict.snapshot ? await snapshotDelta(run.config.root, verdict.snapshot) : undefined;
  driven.status = await held.mutate({}, (tx) => {
    const open = readOpenCheckpoint(run.ctx.paths.internalDir, run.taskNumber);
    const from = open?.previousStatus ?? requireTask(tx, run.taskNumber).status;
    recordResult(tx, {
      taskNumber: run.taskNumber,
      operation: run.operation,
      outcome: verdict.outcome,
      metadata: verdict.metadata,
      artifacts: verdict.artifacts,
      ...(resumePhase === undefined ? {} : { resumePhase }),
      commitPending: ctx.commitWanted ? open : null,
    });
    // Control files: their content is now in state.json, and they are never committed.
    closePostflight(tx, run.folder, { metadata: true });
    const to = requireTask(tx, run.taskNumber).status;
    writeEvidence(tx, {
      subject: evidenceSubject(run, open?.baseline?.commit ?? null),
      status: { from, to },
      result: verdict,
      usage: delegation.usage,
      sandbox: delegation.sandbox(run),
      keyReachable: keyReachableBy(run.ctx.paths.internalDir),
      work,
    });
    return to;
  });
  return { type: "recorded" };
}
