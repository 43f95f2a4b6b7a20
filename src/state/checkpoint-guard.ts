import { TransitionError } from "../shared/index.js";
import { OPERATION_COMMANDS } from "../shared/operation-names.js";
import { recordAudit } from "./audit.js";
import { runningSession } from "./live-sessions.js";
import {
  checkpointPath,
  isCheckpointProcessAlive,
  readOpenCheckpoint,
  sessionActive,
  sessionCheckpoint,
} from "./open-checkpoint.js";
import type { Transaction } from "./store.js";
import type { TaskEntry } from "./store-schema.js";

export interface CheckpointGuardOptions {
  /** A person outside any Claude Code session takes the task back from its gate (audited). */
  force?: boolean | undefined;
  /** The command runs inside a Claude Code session (its Bash calls carry CLAUDE_CODE_SESSION_ID). */
  insideSession?: boolean | undefined;
}

/**
 * An open checkpoint belongs to its gate: while a run holds a task, only that run's GATE OUT (or
 * `baton recover`) may move it, so a manual status change, edit or abandon is refused. A person outside
 * the session may take the task back with --force: the checkpoint is given up and the audit note says
 * so. The messages never point at a way around GATE OUT.
 */
export function guardOpenCheckpoint(
  tx: Transaction,
  task: TaskEntry,
  action: string,
  options: CheckpointGuardOptions,
): void {
  const n = task.project_number;
  const open = readOpenCheckpoint(tx.paths.internalDir, n);
  if (!open) {
    if (options.force) refuseForceInSession(tx, n, action);
    refuseWhileSessionRuns(tx, n, action);
    return;
  }
  // "Inside a session" is what the repository says (an open in-session checkpoint, a host session recorded as
  // running), never only what the caller's environment says: a model can drop CLAUDE_CODE_SESSION_ID, and
  // opencode sets nothing.
  const insideSession =
    options.insideSession || sessionActive(tx.paths) || runningSession(tx.paths.internalDir) !== null;
  const inSession = open.mode === "session";
  const holder = inSession
    ? `${open.operation} run ${open.sessionId}, opened by gate-in in a Claude Code session`
    : `${open.operation} run ${open.sessionId} (pid ${open.pid} on ${open.hostname})`;
  if (!options.force || insideSession) {
    const alive = isCheckpointProcessAlive(open);
    const closes = inSession
      ? `It closes when the delegated agent's result passes \`baton gate-out ${open.operation} ${n} --session ${open.sessionId}\`.`
      : alive === false
        ? `Its process is gone: \`baton recover ${n}\` records its result if it verifies, else rolls the task back.`
        : "It closes when that run finishes.";
    throw new TransitionError(`task ${n}: cannot ${action} while the ${holder} holds it`, {
      hint: insideSession
        ? `${closes} Inside a Claude Code session the task is changed only through its gate; nothing was written.`
        : `${closes} A person outside the session may take the task back with --force (audited); nothing was written.`,
    });
  }
  tx.deleteFile(checkpointPath(tx.paths.internalDir, n));
  recordAudit(task, {
    timestamp: tx.timestamp,
    action: `${action} --force`,
    from: task.status,
    to: task.status,
    note: `gave up the open checkpoint of ${holder}`,
  });
}

/**
 * `--force` goes past the lifecycle table, so while a session holds any checkpoint in this repository
 * it is refused on every task: whoever runs it there may be the model, whatever its environment says.
 */
export function refuseForceInSession(tx: Transaction, n: number, action: string): void {
  const holder = sessionCheckpoint(tx.paths.internalDir);
  if (!holder) {
    refuseWhileSessionRuns(tx, n, `${action} with --force`);
    return;
  }
  throw new TransitionError(
    `task ${n}: cannot ${action} with --force while a Claude Code or opencode session holds task ${holder.taskNumber}'s ${holder.operation} (${holder.sessionId})`,
    {
      hint: "Inside a session tasks change only through their gates. A person takes a task back after the session, or gives up its checkpoint with `baton recover N --force`; nothing was written.",
    },
  );
}

/**
 * While a host session runs in this repository (its SessionStart recorded it; its process is alive), a task
 * changes only through its gates, between checkpoints too: whoever runs a status move, an edit or an abandon
 * there may be the model, whatever its environment says.
 */
export function refuseWhileSessionRuns(tx: Transaction, n: number, action: string): void {
  const running = runningSession(tx.paths.internalDir);
  if (!running) return;
  throw new TransitionError(
    `task ${n}: cannot ${action} while a Claude Code or opencode session runs in this repository (session ${running.session}, process ${running.pid})`,
    {
      hint: `Inside a session tasks change only through their gates (${OPERATION_COMMANDS}). Run this after the session has ended; nothing was written.`,
    },
  );
}
