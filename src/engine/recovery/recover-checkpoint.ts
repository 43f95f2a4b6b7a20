import { existsSync } from "node:fs";
import { join } from "node:path";
import type { BatonConfig } from "../../config/index.js";
import { writeEvidence } from "../../evidence/index.js";
import { appendEvent } from "../../shared/event-stream.js";
// The process-group primitives are not in shared/index.js, for the same start-up reason as the process helper.
import { groupAlive, signalGroup } from "../../shared/process-group.js";
import type { Operation } from "../../state/index.js";
import {
  appendError,
  applyStatus,
  checkpointPath,
  isCheckpointProcessAlive,
  mutateStore,
  type OpenCheckpoint,
  openCheckpointNumbers,
  readDelegation,
  readOpenCheckpoint,
  readStore,
  requireTask,
  storeContext,
  taskFolderPath,
} from "../../state/index.js";
import { commitTaskChanges } from "../commit/git-commit.js";
import { closePostflight, METADATA_FILE } from "../delegate/postflight-marker.js";
import { gateOutInput } from "../gate-out/check-run-result.js";
import { runGateOut } from "../gate-out/index.js";
import { recordResult } from "../gate-out/record-result.js";
import {
  type Checkpoint,
  lastStep,
  readJournal,
  SessionJournal,
  sessionJournalPath,
} from "../session-journal.js";
import { commitRecordedResult } from "./recover-commit.js";
import { settlePlanRun } from "./settle-plan-run.js";

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

const CHECKPOINT_STEPS = new Set<string>(["GATE_IN", "DELEGATE", "GATE_OUT", "COMMIT"]);

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
  const inSession = checkpoint.mode === "session";
  const alive = inSession && force ? false : isCheckpointProcessAlive(checkpoint);
  if (alive !== false) {
    return {
      ...base,
      action: "still_running",
      detail: inSession
        ? `opened by gate-in in a Claude Code session${checkpoint.claudeSessionId ? ` (${checkpoint.claudeSessionId})` : ""}; close it with \`baton gate-out ${checkpoint.operation} ${checkpoint.taskNumber} --session ${checkpoint.sessionId}\`, or give it up with \`baton recover ${checkpoint.taskNumber} --force\``
        : alive === "unknown"
          ? `opened on ${checkpoint.hostname}; check there`
          : `pid ${checkpoint.pid} is running`,
    };
  }
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
  const ctx = storeContext(config);
  const operation = checkpoint.operation as Operation;
  const task = readStore(ctx).state.tasks.find((t) => t.project_number === checkpoint.taskNumber);
  const journal = new SessionJournal(sessionJournalPath(ctx.paths.internalDir, checkpoint.sessionId));
  const records = readJournal(journal.path);
  // Where the run died is told by the checkpoints; the other records are bookkeeping.
  const reached = lastStep(records.filter((r) => CHECKPOINT_STEPS.has(r.step)));
  // A plan run may have had several agents at once: every one still alive is stopped.
  const agentPids = records
    .map((r) => r.detail?.["agentPid"])
    .filter((p): p is number => typeof p === "number");
  for (const agentPid of new Set(agentPids)) {
    if (!groupAlive(agentPid)) continue;
    signalGroup(agentPid, "SIGKILL");
    for (let i = 0; i < 50 && groupAlive(agentPid); i++) await new Promise((r) => setTimeout(r, 20));
  }
  const where = reached ? `${reached.step} ${reached.ended ? "ended" : "began"}` : "no journal";
  journal.begin("RUN", { recover: true, reached: where });
  const folder = task ? taskFolderPath(ctx.paths.dir, task, config.artifactNaming) : null;
  const metadataPath = folder ? join(folder, METADATA_FILE) : "";
  // An in-session result is recorded on recovery only if the delegated sub-agent wrote it, as at gate-out.
  const view = inSession ? readDelegation(ctx.paths.internalDir, checkpoint.sessionId) : null;
  const verdict =
    folder && existsSync(folder)
      ? await runGateOut(
          gateOutInput({
            config,
            operation,
            sessionId: checkpoint.sessionId,
            task: task ?? null,
            folder,
            metadataPath,
            agentOutput: view?.lastOutput ?? "",
            baseline: checkpoint.baseline ?? null,
            provenance: view
              ? { view, agent: checkpoint.agent ?? view.agentType ?? "the delegated agent" }
              : undefined,
          }),
        )
      : null;
  if (task && verdict?.ok) {
    await mutateStore(ctx, { command: "baton recover" }, (tx) => {
      recordResult(tx, {
        taskNumber: checkpoint.taskNumber,
        operation,
        outcome: verdict.outcome,
        metadata: verdict.metadata,
        artifacts: verdict.artifacts,
      });
      if (folder) {
        closePostflight(tx, folder, { metadata: true });
        writeEvidence(tx, {
          root: config.root,
          folder,
          session: checkpoint.sessionId,
          task: checkpoint.taskNumber,
          operation,
          agent: checkpoint.agent ?? verdict.metadata.metadata.agent_type,
          base: checkpoint.baseline?.commit ?? null,
          from: checkpoint.previousStatus,
          to: requireTask(tx, checkpoint.taskNumber).status,
          outcome: verdict.outcome,
          artifacts: verdict.artifacts,
          changes: verdict.changes,
          checks: verdict.checkRuns,
        });
      }
    });
    const commit = config.commit
      ? await commitTaskChanges({
          root: config.root,
          paths: [ctx.paths.state, ctx.paths.todo],
          taskFolder: folder,
          subject: `task ${checkpoint.taskNumber}: complete ${operation} (recovered)`,
          sessionId: checkpoint.sessionId,
        })
      : { ok: true as const, committed: false as const, reason: "commit disabled" };
    journal.end("RUN", true, { recover: "recorded" });
    return {
      ...base,
      action: "recorded",
      detail: `the run died at ${where}; its result verifies at GATE OUT and was recorded`,
      committed: commit.ok && commit.committed,
    };
  }
  const planRun =
    task && folder ? await settlePlanRun(config, task, folder, checkpoint.sessionId, records) : null;
  const why = planRun
    ? `${planRun.completed.length} phase(s) completed before it died${planRun.completed.length > 0 ? ` (${planRun.completed.join(", ")})` : ""}; markers of unfinished phases restored`
    : verdict && !verdict.ok
      ? `${verdict.code}: ${verdict.message}`
      : "the task folder has no result";
  // Phases completed and committed before the crash stay done: the task resumes from the first open phase.
  const restoredStatus = planRun && planRun.completed.length > 0 ? "partial" : checkpoint.previousStatus;
  await mutateStore(ctx, { command: "baton recover" }, (tx) => {
    const current = tx.findTask(checkpoint.taskNumber);
    if (current) {
      const restored = requireTask(tx, checkpoint.taskNumber);
      if (checkpoint.previousSessionId === undefined) delete restored.session_id;
      else restored.session_id = checkpoint.previousSessionId;
      applyStatus(tx, restored, restoredStatus, true);
    }
    if (planRun?.planPath && planRun.planText !== null) tx.writeFile(planRun.planPath, planRun.planText);
    appendError(tx, {
      type: "delegation_interrupted",
      severity: "high",
      message: `the ${operation} run died at ${where}; ${why}; task set to ${restoredStatus}`,
      sessionId: checkpoint.sessionId,
      command: operation,
      task: checkpoint.taskNumber,
      checkpoint: reached ? (reached.step as Checkpoint) : "DELEGATE",
      suggestedAction: `run \`baton ${operation} ${checkpoint.taskNumber}\` again`,
    });
    tx.deleteFile(checkpointPath(ctx.paths.internalDir, checkpoint.taskNumber));
    if (folder) closePostflight(tx, folder, { metadata: false });
  });
  journal.end("RUN", true, { recover: "rolled_back" });
  return {
    ...base,
    action: "rolled_back",
    detail: `the run died at ${where}; ${why}`,
    status: restoredStatus,
  };
}

/** `baton recover [N]`: every open checkpoint (or task N's) whose process is gone. */
export async function recoverOpenRuns(
  config: BatonConfig,
  taskNumber?: number,
  force = false,
): Promise<RecoveryAction[]> {
  const internalDir = storeContext(config).paths.internalDir;
  const numbers = taskNumber === undefined ? openCheckpointNumbers(internalDir) : [taskNumber];
  const actions: RecoveryAction[] = [];
  for (const n of numbers) {
    const checkpoint = readOpenCheckpoint(internalDir, n);
    if (checkpoint) actions.push(await recoverCheckpoint(config, checkpoint, force));
  }
  return actions;
}
