import { relative } from "node:path";
import type { AgentFileReader } from "../../agents/index.js";
import type { BatonConfig } from "../../config/index.js";
import { UsageError } from "../../shared/index.js";
import type { AcceptedOutcome } from "../../shared/run-words.js";
import type { Operation } from "../../state/index.js";
import { type OpenCheckpoint, readOpenCheckpoint, storeContext } from "../../state/index.js";
import { sessionHandOff } from "../delegate/index.js";
import { drive } from "../drive/index.js";
import { recordRunEvents } from "../event-recorder.js";
import { MARKER_FILE, prepareOpenRun, prepareRun, type Run, runJournal, runPrompt } from "../run/index.js";
import { initialState } from "../transition.js";

/**
 * The checkpoints split across a Claude Code session: `gate-in` opens the checkpoint and tells the model
 * what to delegate; the model invokes the agent itself; `gate-out` verifies and records. Both drive the
 * same checkpoint machine and executor as a headless run; only who performs DELEGATE differs.
 */
export type SessionGateIn =
  | {
      ok: true;
      sessionId: string;
      operation: Operation;
      taskNumber: number;
      status: string;
      agent: string;
      routeReason: string;
      prompt: string;
      artifactPath: string;
      metadataPath: string;
      markerPath: string;
      claudeSessionId: string | null;
    }
  | { ok: false; operation: Operation; taskNumber: number; reason: string };

export type SessionGateOut =
  | {
      ok: true;
      operation: Operation;
      taskNumber: number;
      sessionId: string;
      outcome: AcceptedOutcome;
      status: string;
      artifacts: string[];
      committed: boolean;
      commitError?: string;
      leftOut?: string[];
    }
  | {
      ok: false;
      operation: Operation;
      taskNumber: number;
      sessionId: string;
      code: string;
      message: string;
      status: string;
    };

export async function openSessionGate(request: {
  config: BatonConfig;
  agentFiles: readonly AgentFileReader[];
  operation: Operation;
  taskNumber: number;
  focus?: string | undefined;
  force?: boolean | undefined;
  agentOverride?: string | undefined;
  languageOverride?: string | undefined;
  claudeSessionId?: string | undefined;
}): Promise<SessionGateIn> {
  const { operation, taskNumber } = request;
  let run: Run;
  try {
    run = await prepareRun({ ...request, mode: "session" });
  } catch (error) {
    if ((error as { code?: string }).code === "TASK_NOT_FOUND")
      return { ok: false, operation, taskNumber, reason: `task ${taskNumber} is not an active task` };
    throw error;
  }
  const driven = await drive(
    run,
    { journal: runJournal(run), commit: false, emit: recordRunEvents(run) },
    sessionHandOff,
    { state: initialState(operation, taskNumber, run.sessionId), event: { type: "start" } },
  );
  const result = driven.state.result;
  if (result && !result.ok) {
    return { ok: false, operation, taskNumber, reason: result.message };
  }
  return {
    ok: true,
    sessionId: run.sessionId,
    operation,
    taskNumber,
    status: driven.status ?? run.task.status,
    agent: run.route.agent.name,
    routeReason: run.route.reason,
    prompt: runPrompt(run, driven.artifactPath),
    artifactPath: driven.artifactPath,
    metadataPath: relative(run.config.root, run.metadataPath),
    markerPath: relative(run.config.root, `${run.folder}/${MARKER_FILE}`),
    claudeSessionId: request.claudeSessionId ?? null,
  };
}

/** The checkpoint gate-in opened for this session and operation; a usage error naming the right one otherwise. */
function openGate(
  config: BatonConfig,
  operation: Operation,
  taskNumber: number,
  sessionId: string,
): OpenCheckpoint {
  const open = readOpenCheckpoint(storeContext(config).paths.internalDir, taskNumber);
  if (open && open.sessionId === sessionId && open.operation === operation) return open;
  throw new UsageError(
    open
      ? `task ${taskNumber}'s open checkpoint is session ${open.sessionId} (${open.operation}), not ${sessionId} (${operation})`
      : `task ${taskNumber} has no open checkpoint: nothing to close`,
    {
      hint: open
        ? `Run \`baton gate-out ${open.operation} ${taskNumber} --session ${open.sessionId}\`.`
        : `Open one with \`baton gate-in ${operation} ${taskNumber}\`.`,
    },
  );
}

export async function closeSessionGate(request: {
  config: BatonConfig;
  agentFiles: readonly AgentFileReader[];
  operation: Operation;
  taskNumber: number;
  sessionId: string;
  commit?: boolean | undefined;
  /** The sub-agent's own last output, when the caller has it (TASK_ERROR lines are honoured). */
  agentOutput?: string | undefined;
}): Promise<SessionGateOut> {
  const { config, operation, taskNumber, sessionId } = request;
  const open = openGate(config, operation, taskNumber, sessionId);
  const run = await prepareOpenRun(request, open);
  const driven = await drive(
    run,
    { journal: runJournal(run), commit: request.commit !== false, emit: recordRunEvents(run) },
    sessionHandOff,
    {
      state: { ...initialState(operation, taskNumber, sessionId), phase: "delegate" },
      event: { type: "agent_finished", outcome: { ok: true, output: request.agentOutput ?? "" } },
    },
  );
  const result = driven.state.result!;
  const status = driven.status ?? run.task.status;
  if (!result.ok)
    return {
      ok: false,
      operation,
      taskNumber,
      sessionId,
      code: result.code,
      message: result.message,
      status,
    };
  const report: SessionGateOut = {
    ok: true,
    operation,
    taskNumber,
    sessionId,
    outcome: result.outcome,
    status,
    artifacts: driven.verdict?.artifacts.map((a) => a.path) ?? [],
    committed: result.committed,
  };
  if (result.commitError !== undefined && result.commitError !== "commit disabled")
    report.commitError = result.commitError;
  if (result.leftOut) report.leftOut = result.leftOut;
  return report;
}
