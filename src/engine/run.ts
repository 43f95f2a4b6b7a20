import { join } from "node:path";
import type { BatonConfig } from "../config/index.js";
import type { DelegationContext } from "../runners/index.js";
import { newSessionId, TaskNotFoundError } from "../shared/index.js";
import {
  findEntry,
  readOpenCheckpoint,
  readSettledStore,
  type Snapshot,
  type StoreContext,
  storeContext,
  type TaskEntry,
  taskFolderPath,
} from "../state/index.js";
import { agentTemplates } from "./agent-files.js";
import { checksFor } from "./checks.js";
import { loadAgentCatalog } from "./default-agents.js";
import { type GateOutVerdict, runGateOut } from "./gate-out.js";
import type { GateOperation, GateOutInput } from "./gates/types.js";
import { storePrefix } from "./git-baseline.js";
import { type PreparedPlan, preparePlan } from "./phases/prepare.js";
import { METADATA_FILE } from "./postflight-marker.js";
import { buildPrompt, delegationContext } from "./prompt.js";
import { extendDelegationPath, type Route, routeTask } from "./routing.js";
import { SessionJournal, sessionJournalPath } from "./session-journal.js";

/**
 * One operation on one task, prepared once and passed along: the headless run, the in-session gates
 * and the dry run all start from this value, so they cannot disagree about the task, the route, the
 * folder or the prompt.
 */
export interface Run {
  readonly config: BatonConfig;
  readonly ctx: StoreContext;
  readonly operation: GateOperation;
  readonly taskNumber: number;
  /** `session`: DELEGATE is done by the model of a live Claude Code session between gate-in and gate-out. */
  readonly mode: "headless" | "session";
  readonly sessionId: string;
  /** The task as read when the run was prepared (GATE IN changes its status in the store). */
  readonly task: TaskEntry;
  readonly title: string;
  readonly route: Route;
  readonly folder: string;
  readonly metadataPath: string;
  readonly delegationPath: string[];
  readonly focus: string | undefined;
  readonly force: boolean;
  readonly claudeSessionId: string | undefined;
  /** implement in headless mode: the plan checked whole and routed per phase (null: no plan file). */
  readonly plan: PreparedPlan | null;
}

export interface RunRequest {
  config: BatonConfig;
  operation: GateOperation;
  taskNumber: number;
  mode?: "headless" | "session" | undefined;
  /** A session id already issued (gate-out closes the run gate-in opened); default: a new one. */
  sessionId?: string | undefined;
  focus?: string | undefined;
  force?: boolean | undefined;
  agentOverride?: string | undefined;
  languageOverride?: string | undefined;
  claudeSessionId?: string | undefined;
}

/**
 * Reads the store once and prepares the run: the task (TaskNotFoundError when it is not active), the
 * route (only the picked agent's file is parsed), the folder and metadata paths, the delegation path,
 * and for a headless implement the plan, checked whole before anything runs.
 */
export async function prepareRun(request: RunRequest, snapshot?: Snapshot): Promise<Run> {
  const { config, operation, taskNumber } = request;
  const ctx = storeContext(config);
  const store = snapshot ?? (await readSettledStore(ctx));
  const task = store.state.tasks.find((t) => t.project_number === taskNumber);
  if (!task) {
    throw new TaskNotFoundError(taskNumber, `${ctx.paths.state} (active tasks)`, {
      hint: "`baton task list` shows active tasks; `baton task recover N` brings back an archived one.",
    });
  }
  const mode = request.mode ?? "headless";
  const catalog = loadAgentCatalog(config.root);
  const overrides = { agentOverride: request.agentOverride, languageOverride: request.languageOverride };
  const route = routeTask(config, catalog, task, { operation, ...overrides });
  const folder = taskFolderPath(ctx.paths.dir, task, config.artifactNaming);
  const plan =
    operation === "implement" && mode === "headless"
      ? preparePlan(config, catalog, task, folder, {
          agent: request.agentOverride,
          language: request.languageOverride,
        })
      : null;
  return {
    config,
    ctx,
    operation,
    taskNumber,
    mode,
    sessionId: request.sessionId ?? newSessionId(),
    task,
    title: findEntry(store.todo, taskNumber)?.title ?? task.project_name,
    route,
    folder,
    metadataPath: join(folder, METADATA_FILE),
    delegationPath: extendDelegationPath(extendDelegationPath(["baton"], operation), route.agent.name),
    focus: request.focus,
    force: request.force ?? false,
    claudeSessionId: request.claudeSessionId,
    plan,
  };
}

/** The delegation context of format reference 10 for this run. */
export function runContext(run: Run): DelegationContext {
  return delegationContext({
    config: run.config,
    operation: run.operation,
    sessionId: run.sessionId,
    delegationPath: run.delegationPath,
    task: run.task,
    route: run.route,
    folder: run.folder,
    metadataPath: run.metadataPath,
    focus: run.focus,
  });
}

/** The exact prompt the agent receives, given where GATE IN planned the artifact. */
export function runPrompt(run: Run, artifactPath: string): string {
  return buildPrompt(runContext(run), run.title, artifactPath);
}

/** GATE OUT's checks of what the run's agent left in its task folder (and, in session, who wrote it). */
export function checkRunResult(
  run: Run,
  agentOutput: string,
  provenance?: GateOutInput["provenance"],
): Promise<GateOutVerdict> {
  return runGateOut({
    ...(provenance ? { provenance } : {}),
    operation: run.operation,
    sessionId: run.sessionId,
    repoRoot: run.config.root,
    taskFolder: run.folder,
    metadataPath: run.metadataPath,
    agentOutput,
    minArtifactBytes: run.config.minArtifactBytes,
    // GATE IN kept the work tree's baseline in the checkpoint, which is open until the result is recorded.
    baseline: readOpenCheckpoint(run.ctx.paths.internalDir, run.taskNumber)?.baseline ?? null,
    storePrefix: storePrefix(run.config.root, run.ctx.paths.dir),
    checks:
      run.operation === "implement"
        ? checksFor(run.config, run.task.language ?? run.config.defaultLanguage, "operation")
        : [],
    researchSections: run.config.research.sections,
    earlierArtifacts: artifactPaths(run.task),
    templates: agentTemplates(run.route.agent),
  });
}

/** The task's recorded artifacts as repository-relative paths (the original format also keeps bare strings). */
export function artifactPaths(task: TaskEntry): string[] {
  return (task.artifacts ?? []).map((a) => (typeof a === "string" ? a : a.path));
}

/** The session journal of a prepared run. */
export function runJournal(run: Run): SessionJournal {
  return new SessionJournal(sessionJournalPath(run.ctx.paths.internalDir, run.sessionId));
}
