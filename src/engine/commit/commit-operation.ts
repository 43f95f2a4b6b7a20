import { join } from "node:path";
import { evidencePath, publishedKeyPath } from "../../evidence/index.js";
import { present } from "../../shared/present.js";
import type { AcceptedOutcome } from "../../shared/run-words.js";
import type { GitBaseline, Operation } from "../../state/index.js";
import { appendError, type HeldStore, type StoreContext } from "../../state/index.js";
import type { WorkSnapshot } from "../gate-out/index.js";
import { type BatonFile, commitTaskChanges } from "./git-commit.js";
import { taskOnlyStoreFiles } from "./task-only-store.js";

const COMMIT_SUBJECT: Record<Operation, [string, string]> = {
  research: ["complete research", "partial research"],
  plan: ["create implementation plan", "partial implementation plan"],
  revise: ["revise plan", "partial plan revision"],
  implement: ["complete implementation", "partial implementation"],
};

export type CommitStepResult = { committed: boolean; error?: string; failed?: boolean; leftOut?: string[] };

/** This account's public key, when the repository has it (written with the first evidence it signs). */
export function publishedKey(root: string): BatonFile[] {
  const path = publishedKeyPath(root);
  return present(path) ? [{ path }] : [];
}

/**
 * Baton's files in an operation's commit: state.json and TODO.md as Baton last wrote them (the seal's
 * copies) and errors.json, each for this task's entries only, and the run's evidence as it is under the lock.
 */
export async function storeFiles(
  ctx: StoreContext,
  taskNumber: number,
  evidence: string | null,
): Promise<BatonFile[]> {
  return [
    ...(await taskOnlyStoreFiles(ctx, taskNumber)),
    ...(evidence && present(evidence) ? [{ path: evidence }] : []),
    ...publishedKey(ctx.config.root),
  ];
}

/** `complete research`, `partial implementation (3 of 4 phases)`, … */
function commitSubject(operation: Operation, outcome: AcceptedOutcome, detail: string | undefined): string {
  const [done, partial] = COMMIT_SUBJECT[operation];
  if (outcome === "done") return done;
  return detail ? `${partial} ${detail}` : partial;
}

/**
 * COMMIT of an operation's recorded result: the task folder and state files with the session trailer,
 * and this task's errors.json entries, so that an error an earlier failed run of it wrote is committed.
 * A failed commit fails the run: it is recorded in errors.json and the checkpoint stays open with the
 * result recorded, for `baton recover` to commit once git works again.
 */
export async function commitOperation(request: {
  /** The store lock, held since the result was recorded; the failure note is written under it too. */
  store: HeldStore;
  ctx: StoreContext;
  operation: Operation;
  taskNumber: number;
  folder: string;
  outcome: AcceptedOutcome;
  sessionId: string;
  delegationPath: string[];
  /** Appended to a partial subject, e.g. "(3 of 4 phases)". */
  partialDetail?: string | undefined;
  /** Repository-relative files the work changed (an implementation's verified files_changed). */
  files?: readonly string[] | undefined;
  /** The work as GATE OUT accepted it: committed as seen, whatever changed since. */
  seen?: WorkSnapshot | undefined;
  /** Repository-relative files of the record (artifacts) to commit even when ignored. */
  record?: readonly string[] | undefined;
  /** The work tree at GATE IN: a file exactly as it was then is not the agent's, and never committed. */
  baseline?: GitBaseline | null | undefined;
}): Promise<CommitStepResult> {
  const { ctx, operation, taskNumber, sessionId } = request;
  const subject = commitSubject(operation, request.outcome, request.partialDetail);
  const evidence = evidencePath(request.folder, sessionId, operation);
  const result = await commitTaskChanges({
    root: ctx.config.root,
    baton: await storeFiles(ctx, taskNumber, evidence),
    evidence,
    work: {
      paths: (request.files ?? []).map((f) => join(ctx.config.root, f)),
      taskFolder: present(request.folder) ? request.folder : null,
      seen: request.seen,
      baseline: request.baseline,
      record: request.record ?? [],
    },
    subject: `task ${taskNumber}: ${subject}`,
    sessionId,
  });
  if (result.ok) {
    const { leftOut } = result;
    return result.committed
      ? { committed: true, leftOut }
      : { committed: false, error: result.reason, leftOut };
  }
  await request.store.mutate({}, (tx) => {
    appendError(tx, {
      type: "commit_failed",
      severity: "high",
      message: result.reason,
      suggestedAction: `fix what git said, then run \`baton recover ${taskNumber}\`: it commits the recorded result`,
      sessionId,
      command: operation,
      task: taskNumber,
      checkpoint: "COMMIT",
      delegationPath: request.delegationPath,
    });
  });
  return { committed: false, error: result.reason, failed: true };
}
