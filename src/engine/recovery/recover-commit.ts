import { readFileSync } from "node:fs";
import type { BatonConfig } from "../../config/index.js";
import { Evidence, evidencePath } from "../../evidence/index.js";
import type { Operation } from "../../state/index.js";
import {
  holdStore,
  mutateStore,
  type OpenCheckpoint,
  readStore,
  storeContext,
  taskFolderPath,
} from "../../state/index.js";
import { closeCheckpoint, commitOperation, sessionCommitSubjects } from "../commit/index.js";

export type PendingCommitOutcome = { committed: boolean; detail: string } | { failed: string };

/** Whether a commit of this session for this task's operation is already in history (the kill came after it). */
async function alreadyCommitted(root: string, taskNumber: number, sessionId: string): Promise<boolean> {
  const subjects = await sessionCommitSubjects(root, sessionId);
  return (subjects ?? []).some((s) => s.startsWith(`task ${taskNumber}: `));
}

/**
 * A run that recorded its result and then died, or whose commit git refused: the record is in the
 * store, so recovery makes the commit it owes (unless history already has it) and only then closes
 * the checkpoint. If git still refuses, the checkpoint stays open and the error says why.
 */
export async function commitRecordedResult(
  config: BatonConfig,
  checkpoint: OpenCheckpoint & { recorded: NonNullable<OpenCheckpoint["recorded"]> },
): Promise<PendingCommitOutcome> {
  const ctx = storeContext(config);
  const close = () =>
    mutateStore(ctx, { command: "baton recover" }, (tx) => closeCheckpoint(tx, checkpoint.taskNumber));
  if (await alreadyCommitted(config.root, checkpoint.taskNumber, checkpoint.sessionId)) {
    await close();
    return { committed: true, detail: "its result was recorded and committed before it died" };
  }
  const task = readStore(ctx).state.tasks.find((t) => t.project_number === checkpoint.taskNumber);
  const folder = task ? taskFolderPath(ctx.paths.dir, task, config.artifactNaming) : ctx.paths.dir;
  let outcome: PendingCommitOutcome = { failed: "the commit did not run" };
  const held = await holdStore(ctx, "baton recover (commit)");
  try {
    const result = await commitOperation({
      store: held,
      ctx,
      operation: checkpoint.operation as Operation,
      taskNumber: checkpoint.taskNumber,
      folder,
      outcome: checkpoint.recorded.outcome,
      sessionId: checkpoint.sessionId,
      delegationPath: [],
      partialDetail: "(recovered)",
      ...evidencedWork(folder, checkpoint.sessionId, checkpoint.operation),
      baseline: checkpoint.baseline,
    });
    if (result.failed) outcome = { failed: result.error ?? "git commit failed" };
    else {
      await held.mutate({}, (tx) => closeCheckpoint(tx, checkpoint.taskNumber));
      outcome = {
        committed: result.committed,
        detail: result.committed
          ? "its result was recorded but not committed; the commit is made now"
          : `its result was recorded; nothing to commit (${result.error ?? "no changes"})`,
      };
    }
  } finally {
    held.release();
  }
  return outcome;
}

/**
 * The work files the recorded result's evidence names as its own (listed by the agent, or all when it listed
 * none), and its artifacts, committed even when ignored.
 */
function evidencedWork(
  folder: string,
  sessionId: string,
  operation: string,
): { files: string[]; record: string[] } {
  try {
    const parsed = Evidence.safeParse(
      JSON.parse(readFileSync(evidencePath(folder, sessionId, operation), "utf8")),
    );
    if (!parsed.success) return { files: [], record: [] };
    const { changes, artifacts } = parsed.data;
    return {
      files: changes ? changes.files.filter((f) => !changes.unlisted.includes(f)) : [],
      record: artifacts.map((a) => a.path),
    };
  } catch {
    return { files: [], record: [] };
  }
}
