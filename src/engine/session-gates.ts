import { join, relative } from "node:path";
import type { BatonConfig } from "../config/index.js";
import { newSessionId, UsageError } from "../shared/index.js";
import {
  findEntry,
  mutateStore,
  readOpenCheckpoint,
  readSettledStore,
  requireTask,
  storeContext,
  taskFolderPath,
} from "../state/index.js";
import { commitOperation } from "./commit-step.js";
import { loadAgentCatalog } from "./default-agents.js";
import { runGateOut } from "./gate-out.js";
import type { GateOperation } from "./gates/types.js";
import { closePostflight, METADATA_FILE, openPostflight } from "./postflight-marker.js";
import { buildPrompt, delegationContext, plannedArtifact } from "./prompt.js";
import { extendDelegationPath, routeTask } from "./routing.js";
import { SessionJournal, sessionJournalPath } from "./session-journal.js";
import { gateIn, recordFailure, recordResult } from "./store-steps.js";

/**
 * The checkpoints split across a Claude Code session: `gate-in` opens the checkpoint and tells the model
 * what to delegate; the model invokes the agent itself; `gate-out` verifies and records. The store steps
 * and GATE OUT are the headless path's own code; only who runs DELEGATE differs.
 */
export type SessionGateIn =
  | {
      ok: true;
      sessionId: string;
      operation: GateOperation;
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
  | { ok: false; operation: GateOperation; taskNumber: number; reason: string };

export type SessionGateOut =
  | {
      ok: true;
      operation: GateOperation;
      taskNumber: number;
      sessionId: string;
      outcome: "done" | "partial";
      status: string;
      artifacts: string[];
      committed: boolean;
      commitError?: string;
    }
  | {
      ok: false;
      operation: GateOperation;
      taskNumber: number;
      sessionId: string;
      code: string;
      message: string;
      status: string;
    };

export async function openSessionGate(request: {
  config: BatonConfig;
  operation: GateOperation;
  taskNumber: number;
  focus?: string | undefined;
  force?: boolean | undefined;
  agentOverride?: string | undefined;
  languageOverride?: string | undefined;
  claudeSessionId?: string | undefined;
}): Promise<SessionGateIn> {
  const { config, operation, taskNumber } = request;
  const ctx = storeContext(config);
  const snapshot = await readSettledStore(ctx);
  const task = snapshot.state.tasks.find((t) => t.project_number === taskNumber);
  if (!task) {
    return { ok: false, operation, taskNumber, reason: `task ${taskNumber} is not an active task` };
  }
  const catalog = loadAgentCatalog(config.root);
  const route = routeTask(config, catalog, task, {
    operation,
    agentOverride: request.agentOverride,
    languageOverride: request.languageOverride,
  });
  const sessionId = newSessionId();
  const journal = new SessionJournal(sessionJournalPath(ctx.paths.internalDir, sessionId));
  journal.begin("GATE_IN", { mode: "session", claudeSession: request.claudeSessionId ?? null });
  let artifactPath = "";
  let status = "";
  const verdict = await mutateStore(ctx, { command: `baton gate-in ${operation} ${taskNumber}` }, (tx) => {
    const result = gateIn(tx, {
      taskNumber,
      operation,
      sessionId,
      force: request.force ?? false,
      mode: "session",
      claudeSessionId: request.claudeSessionId,
    });
    if (result.ok) {
      const opened = requireTask(tx, taskNumber);
      status = opened.status;
      artifactPath = plannedArtifact(config, ctx.paths.dir, opened, operation).recordedPath;
    }
    return result;
  });
  if (!verdict.ok) {
    journal.end("GATE_IN", false, { reason: verdict.reason });
    return { ok: false, operation, taskNumber, reason: verdict.reason };
  }
  journal.end("GATE_IN", true);
  const folder = taskFolderPath(ctx.paths.dir, task, config.artifactNaming);
  const metadataPath = join(folder, METADATA_FILE);
  const markerPath = openPostflight(folder, {
    sessionId,
    agent: route.agent.name,
    taskNumber,
    operation,
    reason: `Postflight pending: run baton gate-out ${operation} ${taskNumber} --session ${sessionId}`,
    claudeSessionId: request.claudeSessionId,
  });
  const delegationPath = extendDelegationPath(extendDelegationPath(["baton"], operation), route.agent.name);
  const context = delegationContext({
    config,
    operation,
    sessionId,
    delegationPath,
    task,
    route,
    folder,
    metadataPath,
    focus: request.focus,
  });
  journal.begin("DELEGATE", { mode: "session", agent: route.agent.name });
  const title = findEntry(snapshot.todo, taskNumber)?.title ?? task.project_name;
  return {
    ok: true,
    sessionId,
    operation,
    taskNumber,
    status,
    agent: route.agent.name,
    routeReason: route.reason,
    prompt: buildPrompt(context, title, artifactPath),
    artifactPath,
    metadataPath: relative(config.root, metadataPath),
    markerPath: relative(config.root, markerPath),
    claudeSessionId: request.claudeSessionId ?? null,
  };
}

export async function closeSessionGate(request: {
  config: BatonConfig;
  operation: GateOperation;
  taskNumber: number;
  sessionId: string;
  commit?: boolean | undefined;
}): Promise<SessionGateOut> {
  const { config, operation, taskNumber, sessionId } = request;
  const ctx = storeContext(config);
  const open = readOpenCheckpoint(ctx.paths.internalDir, taskNumber);
  if (!open || open.sessionId !== sessionId || open.operation !== operation) {
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
  const snapshot = await readSettledStore(ctx);
  const task = snapshot.state.tasks.find((t) => t.project_number === taskNumber)!;
  const folder = taskFolderPath(ctx.paths.dir, task, config.artifactNaming);
  const metadataPath = join(folder, METADATA_FILE);
  const journal = new SessionJournal(sessionJournalPath(ctx.paths.internalDir, sessionId));
  journal.end("DELEGATE", true, { mode: "session" });
  journal.begin("GATE_OUT");
  const verdict = await runGateOut({
    operation,
    sessionId,
    repoRoot: config.root,
    taskFolder: folder,
    metadataPath,
    agentOutput: "",
    minArtifactBytes: config.minArtifactBytes,
  });
  const delegationPath = ["baton", operation];
  if (!verdict.ok) {
    journal.end("GATE_OUT", false, { code: verdict.code });
    const status = await mutateStore(ctx, { command: `baton gate-out ${operation} ${taskNumber}` }, (tx) => {
      recordFailure(tx, {
        taskNumber,
        operation,
        sessionId,
        checkpoint: "GATE_OUT",
        code: verdict.code,
        message: verdict.message,
        delegationPath,
      });
      return requireTask(tx, taskNumber).status;
    });
    closePostflight(folder, { metadata: false });
    return {
      ok: false,
      operation,
      taskNumber,
      sessionId,
      code: verdict.code,
      message: verdict.message,
      status,
    };
  }
  const status = await mutateStore(ctx, { command: `baton gate-out ${operation} ${taskNumber}` }, (tx) => {
    recordResult(tx, {
      taskNumber,
      operation,
      outcome: verdict.outcome,
      metadata: verdict.metadata,
      artifacts: verdict.artifacts,
    });
    return requireTask(tx, taskNumber).status;
  });
  closePostflight(folder, { metadata: true });
  journal.end("GATE_OUT", true, { outcome: verdict.outcome });
  let committed = false;
  let commitError: string | undefined;
  if (request.commit !== false && config.commit) {
    journal.begin("COMMIT");
    const result = await commitOperation({
      ctx,
      operation,
      taskNumber,
      folder,
      outcome: verdict.outcome,
      sessionId,
      delegationPath,
    });
    committed = result.committed;
    commitError = result.error;
    journal.end("COMMIT", result.failed !== true);
  }
  const report: SessionGateOut = {
    ok: true,
    operation,
    taskNumber,
    sessionId,
    outcome: verdict.outcome,
    status,
    artifacts: verdict.artifacts.map((a) => a.path),
    committed,
  };
  if (commitError !== undefined) report.commitError = commitError;
  return report;
}
