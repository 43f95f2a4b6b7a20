import type { AgentFileReader } from "../../agents/index.js";
import type { BatonConfig } from "../../config/index.js";
import type { AgentDefinition, DelegationContext, RunUsage } from "../../runners/index.js";
import { UsageError } from "../../shared/index.js";
import type { AcceptedOutcome } from "../../shared/run-words.js";
import type { Operation } from "../../state/index.js";
import { readOpenCheckpoint, storeContext } from "../../state/index.js";
import { type Delegation, queueHandOff } from "../delegate/index.js";
import { drive } from "../drive/index.js";
import { recordRunEvents } from "../event-recorder.js";
import {
  frozenFolders,
  prepareOpenRun,
  prepareRun,
  protectedPaths,
  runContext,
  runJournal,
  runPrompt,
} from "../run/index.js";
import { type DelegationOutcome, initialState } from "../transition.js";

/**
 * The checkpoints split across machines (`baton run --queue`): the coordinator runs GATE IN here and
 * hands DELEGATE to a worker through the queue; when the worker's branch comes back and its files are
 * in the coordinator's tree, GATE OUT and COMMIT run here too. The coordinator is the store's only
 * writer. What the agent wrote is exactly the worker's commit, so no hook provenance is asked for;
 * every other gate (metadata, artifacts, substance, changes, checks) holds as in a headless run.
 */
export type QueuedGateIn =
  | {
      ok: true;
      sessionId: string;
      context: DelegationContext;
      prompt: string;
      agent: AgentDefinition;
      timeoutMs: number;
      /** What the worker's sandbox keeps read-only, repository-relative; null with `--sandbox off`. */
      protect: string[] | null;
      /** The folders whose own entries it keeps fixed (the store's), repository-relative. */
      frozen: string[];
    }
  /** `code`: GATE IN's own (GATE_IN_REFUSED, APPROVAL_REQUIRED, …). */
  | { ok: false; reason: string; code: string };

export async function openQueuedGate(request: {
  config: BatonConfig;
  agentFiles: readonly AgentFileReader[];
  operation: Operation;
  taskNumber: number;
  force?: boolean | undefined;
}): Promise<QueuedGateIn> {
  const run = await prepareRun({ ...request, mode: "session" });
  const driven = await drive(
    run,
    { journal: runJournal(run), commit: false, emit: recordRunEvents(run, { runner: "queue" }) },
    queueHandOff,
    { state: initialState(run.operation, run.taskNumber, run.sessionId), event: { type: "start" } },
  );
  const result = driven.state.result;
  if (result && !result.ok) {
    return { ok: false, reason: result.message, code: result.code };
  }
  return {
    ok: true,
    sessionId: run.sessionId,
    context: runContext(run, driven.artifactPath),
    prompt: runPrompt(run, driven.artifactPath),
    agent: run.route.agent,
    timeoutMs: run.config.timeoutsMs[run.operation],
    protect: run.config.sandbox === "off" ? null : protectedPaths(run),
    frozen: frozenFolders(run),
  };
}

export type QueuedGateOut =
  | { ok: true; outcome: AcceptedOutcome; status: string; committed: boolean; artifacts: string[] }
  | { ok: false; code: string; message: string; status: string };

/** GATE OUT and COMMIT of a queued run, once its worker's files are in place (or it failed). */
export async function closeQueuedGate(request: {
  config: BatonConfig;
  agentFiles: readonly AgentFileReader[];
  operation: Operation;
  taskNumber: number;
  sessionId: string;
  outcome: DelegationOutcome;
  usage?: RunUsage | undefined;
}): Promise<QueuedGateOut> {
  const { config, operation, taskNumber, sessionId } = request;
  const open = readOpenCheckpoint(storeContext(config).paths.internalDir, taskNumber);
  if (!open || open.sessionId !== sessionId) {
    throw new UsageError(
      `task ${taskNumber} has no open checkpoint for session ${sessionId}: already recorded`,
    );
  }
  const run = await prepareOpenRun(request, open);
  const delegation: Delegation = { ...queueHandOff, usage: request.usage };
  const driven = await drive(
    run,
    { journal: runJournal(run), commit: true, emit: recordRunEvents(run, { runner: "queue" }) },
    delegation,
    {
      state: { ...initialState(operation, taskNumber, sessionId), phase: "delegate" },
      event: { type: "agent_finished", outcome: request.outcome },
    },
  );
  const result = driven.state.result!;
  const status = driven.status ?? run.task.status;
  if (!result.ok) return { ok: false, code: result.code, message: result.message, status };
  return {
    ok: true,
    outcome: result.outcome,
    status,
    committed: result.committed,
    artifacts: driven.verdict?.artifacts.map((a) => a.path) ?? [],
  };
}
