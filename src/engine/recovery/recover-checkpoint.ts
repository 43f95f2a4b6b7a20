import type { BatonConfig } from "../../config/index.js";
import { removeDeadRunsFiles } from "../../runners/index.js";
import { appendEvent } from "../../shared/event-stream.js";
import {
  isCheckpointProcessAlive,
  loadErrors,
  type OpenCheckpoint,
  openCheckpointNumbers,
  readOpenCheckpoint,
  storeContext,
  sweepInterruptedWrites,
} from "../../state/index.js";
import { openDeadRun, recordDeadResult, rollBackDeadRun, verifyDeadResult } from "./dead-run.js";
import { commitRecordedResult } from "./recover-commit.js";
import { dropDeadPhaseBranches, settleSharedIndex } from "./settle-index.js";

export type RecoveryAction =
  | { taskNumber: number; sessionId: string; operation: string; action: "still_running"; detail: string }
  | {
      taskNumber: number;
      sessionId: string;
      operation: string;
      action: "recorded";
      detail: string;
      committed: boolean;
    }
  | {
      taskNumber: number;
      sessionId: string;
      operation: string;
      /** Its result is recorded, and git still refuses the commit it owes: the checkpoint stays open. */
      action: "commit_pending";
      detail: string;
    }
  | {
      taskNumber: number;
      sessionId: string;
      operation: string;
      action: "rolled_back";
      detail: string;
      status: string;
    };

/**
 * Resolves a run that died (kill -9, power loss): if what the agent left verifies at GATE OUT, the
 * result is recorded as if the run had finished; otherwise the task goes back to its status before
 * GATE IN. Either way the open checkpoint is closed and the decision is journaled and reported.
 */
export async function recoverCheckpoint(
  config: BatonConfig,
  checkpoint: OpenCheckpoint,
  /** Resolve an in-session checkpoint too: no process tells whether its Claude Code session still works on it. */
  force = false,
): Promise<RecoveryAction> {
  const action = await resolveCheckpoint(config, checkpoint, force);
  if (action.action !== "still_running") {
    await dropDeadPhaseBranches(config.root, checkpoint.sessionId, branchesKeptFor(config));
    // A recovery ends the dead run's operation in the stream, so nothing shows it running any more.
    appendEvent(config.root, {
      kind: "recovery",
      session: action.sessionId,
      task: action.taskNumber,
      operation: action.operation,
      outcome: action.action,
      message: action.detail.slice(0, 300),
    });
    if (action.action !== "commit_pending") {
      appendEvent(config.root, {
        kind: "operation",
        session: action.sessionId,
        task: action.taskNumber,
        operation: action.operation,
        outcome: action.action === "recorded" ? "recovered" : "rolled_back",
        code: "RECOVERED",
      });
    }
  }
  return action;
}

/** Branches errors.json tells the person to merge by hand: never dropped with a dead run's others. */
function branchesKeptFor(config: BatonConfig): Set<string> {
  const kept = new Set<string>();
  try {
    for (const entry of loadErrors(storeContext(config).paths).entries) {
      const action = (entry.recovery as { suggested_action?: unknown } | undefined)?.suggested_action;
      const named = /merge branch (\S+) by hand/.exec(typeof action === "string" ? action : "")?.[1];
      if (named) kept.add(named);
    }
  } catch {
    // errors.json unreadable: keep nothing apart (the dead run's branches would be dropped anyway)
  }
  return kept;
}

/** A checkpoint whose process may still work on it: nothing to resolve (an in-session one only with --force). */
function stillRunning(checkpoint: OpenCheckpoint, force: boolean): string | null {
  const inSession = checkpoint.mode === "session";
  const alive = inSession && force ? false : isCheckpointProcessAlive(checkpoint);
  if (alive === false) return null;
  if (inSession) {
    const host = checkpoint.claudeSessionId ? ` (${checkpoint.claudeSessionId})` : "";
    return `opened by gate-in in a Claude Code session${host}; close it with \`baton gate-out ${checkpoint.operation} ${checkpoint.taskNumber} --session ${checkpoint.sessionId}\`, or give it up with \`baton recover ${checkpoint.taskNumber} --force\``;
  }
  return alive === "unknown"
    ? `opened on ${checkpoint.hostname}; check there`
    : `pid ${checkpoint.pid} is running`;
}

async function resolveCheckpoint(
  config: BatonConfig,
  checkpoint: OpenCheckpoint,
  force: boolean,
): Promise<RecoveryAction> {
  const base = {
    taskNumber: checkpoint.taskNumber,
    sessionId: checkpoint.sessionId,
    operation: checkpoint.operation,
  };
  const running = stillRunning(checkpoint, force);
  if (running !== null) return { ...base, action: "still_running", detail: running };
  // Before anything commits again: the shared index back in step with HEAD on the dead session's paths.
  await settleSharedIndex(config.root, checkpoint.sessionId);
  const recorded = checkpoint.recorded;
  if (recorded) {
    const pending = await commitRecordedResult(config, { ...checkpoint, recorded });
    return "failed" in pending
      ? {
          ...base,
          action: "commit_pending",
          detail: `its result is recorded but git refuses the commit: ${pending.failed}; fix that and run \`baton recover ${checkpoint.taskNumber}\` again`,
        }
      : { ...base, action: "recorded", detail: pending.detail, committed: pending.committed };
  }
  const dead = await openDeadRun(config, checkpoint);
  const verdict = await verifyDeadResult(dead);
  if (dead.task && verdict?.ok) {
    const committed = await recordDeadResult(dead, verdict);
    const detail = `the run died at ${dead.where}; its result verifies at GATE OUT and was recorded`;
    return { ...base, action: "recorded", detail, committed };
  }
  const rolledBack = await rollBackDeadRun(dead, verdict);
  return { ...base, action: "rolled_back", detail: rolledBack.detail, status: rolledBack.status };
}

/** `baton recover [N]`: every open checkpoint (or task N's) whose process is gone. */
export async function recoverOpenRuns(
  config: BatonConfig,
  taskNumber?: number,
  force = false,
): Promise<RecoveryAction[]> {
  const internalDir = storeContext(config).paths.internalDir;
  // An interrupted store write is rolled forward first: the checkpoint GATE IN was opening may be one of
  // its files, and a checkpoint that appears only after the list is made would outlive its dead run.
  await sweepInterruptedWrites(storeContext(config));
  // The agent files of a Baton killed mid-run (its context and agent definition, in the temp dir).
  removeDeadRunsFiles();
  const numbers = taskNumber === undefined ? openCheckpointNumbers(internalDir) : [taskNumber];
  const actions: RecoveryAction[] = [];
  for (const n of numbers) {
    const checkpoint = readOpenCheckpoint(internalDir, n);
    if (checkpoint) actions.push(await recoverCheckpoint(config, checkpoint, force));
  }
  return actions;
}
