import { join } from "node:path";
import type { BatonConfig } from "../../config/index.js";
import { evidencePath, writeEvidence } from "../../evidence/index.js";
import { present } from "../../shared/present.js";
// The process-group primitives are not in shared/index.js, for the same start-up reason as the process helper.
import { groupAlive, signalGroup } from "../../shared/process-group.js";
import { CHECKPOINTS } from "../../shared/run-words.js";
import {
  appendError,
  applyStatus,
  checkpointPath,
  holdStore,
  mutateStore,
  type OpenCheckpoint,
  type Operation,
  readDelegation,
  readStore,
  requireTask,
  type StoreContext,
  storeContext,
  type TaskEntry,
  type Transaction,
  taskFolderPath,
} from "../../state/index.js";
import { commitTaskChanges, storeFiles } from "../commit/index.js";
import { type GateOutVerdict, gateOutInput, recordResult, runGateOut } from "../gate-out/index.js";
import {
  type Checkpoint,
  closePostflight,
  type JournalRecord,
  lastStep,
  METADATA_FILE,
  readJournal,
  SessionJournal,
  sessionJournalPath,
} from "../run/index.js";
import { type PutAside, putAsideDeadOutput } from "./put-aside.js";
import { type SettledPlanRun, settlePlanRun } from "./settle-plan-run.js";

const CHECKPOINT_STEPS = new Set<string>(CHECKPOINTS);

/** A run whose process died with its checkpoint open, as recovery reads it from the store and its journal. */
export interface DeadRun {
  config: BatonConfig;
  ctx: StoreContext;
  checkpoint: OpenCheckpoint;
  operation: Operation;
  task: TaskEntry | undefined;
  folder: string | null;
  journal: SessionJournal;
  records: JournalRecord[];
  reached: ReturnType<typeof lastStep>;
  /** Where it died, in words ("DELEGATE began"). */
  where: string;
}

/** Reads the dead run, stops every agent of it still alive (a plan run may have had several), journals the recovery. */
export async function openDeadRun(config: BatonConfig, checkpoint: OpenCheckpoint): Promise<DeadRun> {
  const ctx = storeContext(config);
  const task = readStore(ctx).state.tasks.find((t) => t.project_number === checkpoint.taskNumber);
  const journal = new SessionJournal(sessionJournalPath(ctx.paths.internalDir, checkpoint.sessionId));
  const records = readJournal(journal.path);
  // Where the run died is told by the checkpoints; the other records are bookkeeping.
  const reached = lastStep(records.filter((r) => CHECKPOINT_STEPS.has(r.step)));
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
  const operation = checkpoint.operation as Operation;
  return { config, ctx, checkpoint, operation, task, folder, journal, records, reached, where };
}

/** GATE OUT on what the dead run left; an in-session result only if the delegated sub-agent wrote it. */
export async function verifyDeadResult(dead: DeadRun): Promise<GateOutVerdict | null> {
  const { config, ctx, checkpoint, folder } = dead;
  if (!folder || !present(folder)) return null;
  const view =
    checkpoint.mode === "session" ? readDelegation(ctx.paths.internalDir, checkpoint.sessionId) : null;
  return runGateOut(
    gateOutInput({
      config,
      operation: dead.operation,
      sessionId: checkpoint.sessionId,
      task: dead.task ?? null,
      folder,
      metadataPath: join(folder, METADATA_FILE),
      agentOutput: view?.stopOutput ?? "",
      baseline: checkpoint.baseline ?? null,
      provenance: view
        ? { view, agent: checkpoint.agent ?? view.agentType ?? "the delegated agent" }
        : undefined,
    }),
  );
}

/** The dead run's verified result recorded, with its evidence, and committed; whether the commit landed. */
export async function recordDeadResult(
  dead: DeadRun,
  verdict: Extract<GateOutVerdict, { ok: true }>,
): Promise<boolean> {
  const { config, ctx, checkpoint, folder, operation } = dead;
  await mutateStore(ctx, { command: "baton recover" }, (tx) => {
    const { outcome, metadata, artifacts } = verdict;
    recordResult(tx, { taskNumber: checkpoint.taskNumber, operation, outcome, metadata, artifacts });
    if (!folder) return;
    closePostflight(tx, folder, { metadata: true });
    writeEvidence(tx, {
      subject: {
        root: config.root,
        folder,
        session: checkpoint.sessionId,
        task: checkpoint.taskNumber,
        operation,
        agent: checkpoint.agent ?? verdict.metadata.metadata.agent_type,
        base: checkpoint.baseline?.commit ?? null,
      },
      status: { from: checkpoint.previousStatus, to: requireTask(tx, checkpoint.taskNumber).status },
      result: verdict,
      sandbox: checkpoint.mode === "session" ? "session" : config.sandbox,
    });
  });
  const commit = config.commit
    ? await commitTaskChanges({
        root: config.root,
        baton: await storeFiles(ctx, checkpoint.taskNumber, null),
        evidence: folder ? evidencePath(folder, checkpoint.sessionId, operation) : null,
        work: {
          paths: [],
          taskFolder: folder,
          baseline: checkpoint.baseline,
          record: verdict.artifacts.map((a) => a.path),
        },
        subject: `task ${checkpoint.taskNumber}: complete ${operation} (recovered)`,
        sessionId: checkpoint.sessionId,
      })
    : { ok: true as const, committed: false as const, reason: "commit disabled" };
  dead.journal.end("RUN", true, { recover: "recorded" });
  return commit.ok && commit.committed;
}

/**
 * No verified result: the task goes back to its status before GATE IN (or `partial` when a plan run completed
 * and committed phases before it died), errors.json says why, and the checkpoint closes.
 */
export async function rollBackDeadRun(
  dead: DeadRun,
  verdict: GateOutVerdict | null,
): Promise<{ detail: string; status: string }> {
  const { config, ctx, checkpoint, folder, task } = dead;
  const planRun =
    task && folder ? await settlePlanRun(config, task, folder, checkpoint.sessionId, dead.records) : null;
  const why = planRun
    ? `${planRun.completed.length} phase(s) completed before it died${planRun.completed.length > 0 ? ` (${planRun.completed.join(", ")})` : ""}; markers of unfinished phases restored`
    : verdict && !verdict.ok
      ? `${verdict.code}: ${verdict.message}`
      : "the task folder has no result";
  // Phases completed and committed before the crash stay done: the task resumes from the first open phase.
  const status = planRun && planRun.completed.length > 0 ? "partial" : checkpoint.previousStatus;
  // Held from the put-aside to the record: no run may start in the tree while it changes.
  const held = await holdStore(ctx, "baton recover");
  let aside: PutAside;
  try {
    const keep = planRun?.planPath ? [planRun.planPath] : [];
    aside = await putAsideDeadOutput(ctx, checkpoint, dead.records, { folder, keep });
    await held.mutate({}, (tx) => closeDeadRun(tx, dead, { why, status, aside, planRun }));
  } finally {
    held.release();
  }
  dead.journal.end("RUN", true, { recover: "rolled_back" });
  return { detail: `the run died at ${dead.where}; ${why}${asideWords(aside)}`, status };
}

/** The task back to `status`, the plan's markers restored, errors.json told why, the checkpoint closed. */
function closeDeadRun(
  tx: Transaction,
  dead: DeadRun,
  closing: { why: string; status: string; aside: PutAside; planRun: SettledPlanRun | null },
): void {
  const { ctx, checkpoint, folder, operation } = dead;
  const { why, status, aside, planRun } = closing;
  if (tx.findTask(checkpoint.taskNumber)) {
    const restored = requireTask(tx, checkpoint.taskNumber);
    if (checkpoint.previousSessionId === undefined) delete restored.session_id;
    else restored.session_id = checkpoint.previousSessionId;
    applyStatus(tx, restored, status, true);
  }
  if (planRun?.planPath && planRun.planText !== null) tx.writeFile(planRun.planPath, planRun.planText);
  const onBranch = aside.branch
    ? `; its unrecorded changes are on branch ${aside.branch} (\`git checkout ${aside.branch} -- <file>\` takes one back)`
    : "";
  appendError(tx, {
    type: "delegation_interrupted",
    severity: "high",
    message: `the ${operation} run died at ${dead.where}; ${why}; task set to ${status}${asideWords(aside)}`,
    sessionId: checkpoint.sessionId,
    command: operation,
    task: checkpoint.taskNumber,
    checkpoint: dead.reached ? (dead.reached.step as Checkpoint) : "DELEGATE",
    suggestedAction: `run \`baton ${operation} ${checkpoint.taskNumber}\` again${onBranch}`,
  });
  tx.deleteFile(checkpointPath(ctx.paths.internalDir, checkpoint.taskNumber));
  if (folder) closePostflight(tx, folder, { metadata: false });
}

/** The put-aside in words, for the report and errors.json. */
function asideWords(aside: PutAside): string {
  const parts: string[] = [];
  if (aside.files.length > 0)
    parts.push(
      `its unrecorded changes to ${aside.files.join(", ")} were put aside on branch ${aside.branch}`,
    );
  else if (aside.branch) parts.push(`its unrecorded changes are on branch ${aside.branch}`);
  if (aside.kept.length > 0)
    parts.push(`${aside.kept.join(", ")} (changed before the run began) kept as they are`);
  if (aside.skipped) parts.push(aside.skipped);
  return parts.length > 0 ? `; ${parts.join("; ")}` : "";
}
