import type { AcceptedOutcome } from "../../shared/run-words.js";
import { holdStore, readOpenCheckpoint } from "../../state/index.js";
import { closeCheckpoint, commitOperation } from "../commit/index.js";
import type { RunEvent } from "../transition.js";
import type { DriveContext } from "./drive-context.js";

/**
 * COMMIT of the run's recorded result, under the lock GATE OUT's record took; only once the record and
 * its commit are both in does the checkpoint close.
 */
export async function commitRun(ctx: DriveContext, outcome: AcceptedOutcome): Promise<RunEvent> {
  const { run, delegation, driven } = ctx;
  if (!ctx.commitWanted) {
    ctx.held?.release();
    return { type: "commit_finished", committed: false, error: "commit disabled" };
  }
  ctx.held ??= await holdStore(run.ctx, ctx.command);
  const held = ctx.held;
  try {
    const result = await commitOperation({
      store: held,
      ctx: run.ctx,
      operation: run.operation,
      taskNumber: run.taskNumber,
      folder: run.folder,
      outcome,
      sessionId: run.sessionId,
      delegationPath: run.delegationPath,
      partialDetail: delegation.partialDetail?.(),
      files: committedFiles(driven.verdict),
      seen: driven.verdict?.snapshot,
      record: recordFiles(driven.verdict),
      baseline: readOpenCheckpoint(run.ctx.paths.internalDir, run.taskNumber)?.baseline,
    });
    if (!result.failed) await held.mutate({}, (tx) => closeCheckpoint(tx, run.taskNumber));
    return { type: "commit_finished", ...result };
  } finally {
    held.release();
  }
}

/**
 * The work files an operation's commit carries besides the task folder: an implementation's listed
 * files_changed, each verified by GATE OUT to have changed (a plan run committed them phase by phase).
 */
function committedFiles(verdict: DriveContext["driven"]["verdict"]): string[] {
  const changes = verdict?.changes;
  if (!changes) return [];
  return changes.files.filter((f) => !changes.unlisted.includes(f));
}

/**
 * Baton's record in the commit even where a .gitignore hides it: the artifacts GATE OUT linked (a plan run's
 * summary, which Baton writes itself and no snapshot of the agent's work holds).
 */
function recordFiles(verdict: DriveContext["driven"]["verdict"]): string[] {
  return verdict?.ok ? verdict.artifacts.map((a) => a.path) : [];
}
