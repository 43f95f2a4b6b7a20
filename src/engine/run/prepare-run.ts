import { join, relative, resolve } from "node:path";
import {
  type AgentFileReader,
  buildPrompt,
  delegationContext,
  extendDelegationPath,
  loadAgentCatalog,
  type Route,
  routeTask,
} from "../../agents/index.js";
import type { BatonConfig } from "../../config/index.js";
import type { EvidenceSubject } from "../../evidence/index.js";
import type { DelegationContext, Runner } from "../../runners/index.js";
import {
  newSessionId,
  requireRepository,
  type StartMark,
  startMark,
  TaskNotFoundError,
  TransitionError,
} from "../../shared/index.js";
import type { RunMode } from "../../shared/run-words.js";
import type { Operation } from "../../state/index.js";
import {
  findEntry,
  type OpenCheckpoint,
  readSettledStore,
  runningSession,
  type Snapshot,
  type StoreContext,
  storeContext,
  type TaskEntry,
  taskFolderPath,
} from "../../state/index.js";
import { METADATA_FILE } from "./postflight-marker.js";
import { type PreparedPlan, preparePlan } from "./prepare-plan.js";
import { SessionJournal, sessionJournalPath } from "./session-journal.js";

/**
 * One operation on one task, prepared once and passed along: the headless run, the in-session gates
 * and the dry run all start from this value, so they cannot disagree about the task, the route, the
 * folder or the prompt.
 */
export interface Run {
  readonly config: BatonConfig;
  readonly ctx: StoreContext;
  readonly operation: Operation;
  readonly taskNumber: number;
  /** `session`: DELEGATE is done by the model of a live Claude Code session between gate-in and gate-out. */
  readonly mode: RunMode;
  readonly sessionId: string;
  /** The task as read when the run was prepared (GATE IN changes its status in the store). */
  readonly task: TaskEntry;
  readonly title: string;
  readonly route: Route;
  readonly folder: string;
  readonly metadataPath: string;
  readonly delegationPath: string[];
  /** What the user asked the agent to focus on; null when nothing was asked. */
  readonly focus: string | null;
  readonly force: boolean;
  /** The host session that opened an in-session run; null for headless runs and unbound sessions. */
  readonly claudeSessionId: string | null;
  /** implement in headless mode: the plan checked whole and routed per phase (null: no plan file). */
  readonly plan: PreparedPlan | null;
  /** When the run began (an open checkpoint's start, when the run is prepared again to be closed): its duration's origin. */
  readonly began: StartMark;
}

export interface RunRequest {
  config: BatonConfig;
  /** Where each host keeps its agents (src/hosts' registry): the route is chosen among all of them. */
  agentFiles: readonly AgentFileReader[];
  operation: Operation;
  taskNumber: number;
  mode?: RunMode | undefined;
  /** A session id already issued (gate-out closes the run gate-in opened); default: a new one. */
  sessionId?: string | undefined;
  focus?: string | undefined;
  force?: boolean | undefined;
  agentOverride?: string | undefined;
  languageOverride?: string | undefined;
  claudeSessionId?: string | undefined;
  /** The run began earlier, in another process (gate-in): its open checkpoint's start. */
  began?: StartMark | undefined;
}

/** How a plan run's phases share the work tree: `worktree` gives each its own git worktree, merged back in phase order. */
export const ISOLATE_MODES = ["none", "worktree"] as const;
export type IsolateMode = (typeof ISOLATE_MODES)[number];

/** How Baton's runner executes a headless run: settled once, from the request and the configuration. */
export interface HeadlessExecution {
  readonly runner: Runner;
  readonly signal: AbortSignal;
  /** The caller's wish; the configuration's `commit` is applied where the commit is made. */
  readonly commit: boolean;
  /** Plan runs: phases of one wave run at once. */
  readonly concurrency: number;
  readonly maxIterations: number;
  readonly isolate: IsolateMode;
  /** USD this run may spend (`--max-cost`); the configuration's budgets apply as well. */
  readonly maxCost: number | undefined;
}

/** A headless run: the run value with how Baton's runner executes it. */
export interface HeadlessRun extends Run {
  readonly execution: HeadlessExecution;
}

/** What a headless run is asked for: the run, the runner that executes it, and how (each part optional). */
export interface HeadlessRequest
  extends Omit<RunRequest, "mode" | "sessionId" | "claudeSessionId" | "began"> {
  runner: Runner;
  execution?: Partial<Omit<HeadlessExecution, "runner">> | undefined;
}

/** The headless run prepared once: the run value, its execution settled with the configuration's defaults. */
export async function prepareHeadlessRun(request: HeadlessRequest): Promise<HeadlessRun> {
  const run = await prepareRun({ ...request, mode: "headless" });
  const { phases } = run.config;
  const asked = request.execution ?? {};
  return {
    ...run,
    execution: {
      runner: request.runner,
      signal: asked.signal ?? new AbortController().signal,
      commit: asked.commit !== false,
      concurrency: asked.concurrency ?? phases.concurrency,
      maxIterations: asked.maxIterations ?? phases.maxIterations,
      isolate: asked.isolate ?? "none",
      maxCost: asked.maxCost,
    },
  };
}

/**
 * Reads the store once and prepares the run: the task (TaskNotFoundError when it is not active), the
 * route (only the picked agent's file is parsed), the folder and metadata paths, the delegation path,
 * and for a headless implement the plan, checked whole before anything runs.
 */
export async function prepareRun(request: RunRequest, snapshot?: Snapshot): Promise<Run> {
  const { config, operation, taskNumber } = request;
  const ctx = storeContext(config);
  requireRepository(config.root, `${operation} could not commit its work`);
  const store = snapshot ?? (await readSettledStore(ctx));
  const task = store.state.tasks.find((t) => t.project_number === taskNumber);
  if (!task) {
    throw new TaskNotFoundError(taskNumber, `${ctx.paths.state} (active tasks)`, {
      hint: "`baton task list` shows active tasks; `baton task recover N` brings back an archived one.",
    });
  }
  const mode = request.mode ?? "headless";
  if (mode === "headless") refuseHeadlessInSession(ctx.paths.internalDir, operation, taskNumber);
  const catalog = loadAgentCatalog(config.root, request.agentFiles);
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
    focus: request.focus || null,
    force: request.force ?? false,
    claudeSessionId: request.claudeSessionId || null,
    plan,
    began: request.began ?? startMark(),
  };
}

/**
 * A headless run started while a host session runs in the repository would record a result no delegated agent
 * of that session produced, outside its gates (a `baton research N --script …` from the model's own Bash):
 * refused, whatever the caller's environment says.
 */
function refuseHeadlessInSession(internalDir: string, operation: string, taskNumber: number): void {
  const running = runningSession(internalDir);
  if (!running) return;
  throw new TransitionError(
    `task ${taskNumber}: cannot run ${operation} headless while a Claude Code or opencode session runs in this repository (session ${running.session}, process ${running.pid})`,
    {
      hint: `In the session, run /${operation} ${taskNumber}: its gates delegate and record the result. Headless runs start once the session has ended; nothing was written.`,
    },
  );
}

/** The run an open checkpoint belongs to, prepared again to be closed: the same session and agent. */
export function prepareOpenRun(
  request: Pick<RunRequest, "config" | "agentFiles" | "operation" | "taskNumber">,
  open: OpenCheckpoint,
): Promise<Run> {
  return prepareRun({
    ...request,
    mode: "session",
    sessionId: open.sessionId,
    agentOverride: open.agent,
    claudeSessionId: open.claudeSessionId,
    began: { startedAt: open.startedAt, startedMono: open.startedMono, bootId: open.bootId },
  });
}

/** The delegation context of format reference 10 for this run, with where its artifact goes when known. */
export function runContext(run: Run, artifactPath?: string): DelegationContext {
  const context = delegationContext({
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
  if (artifactPath) context.artifact_path = relative(run.config.root, resolve(run.config.root, artifactPath));
  return context;
}

/** The run as its evidence names it: who did what on which task, from the commit GATE IN saw. */
export function evidenceSubject(run: Run, base: string | null): EvidenceSubject {
  return {
    root: run.config.root,
    folder: run.folder,
    session: run.sessionId,
    task: run.taskNumber,
    operation: run.operation,
    agent: run.route.agent.name,
    base,
  };
}

/** The exact prompt the agent receives, given where GATE IN planned the artifact. */
export function runPrompt(run: Run, artifactPath: string): string {
  return buildPrompt(runContext(run, artifactPath), run.title, artifactPath);
}

/** The session journal of a prepared run. */
export function runJournal(run: Run): SessionJournal {
  return new SessionJournal(sessionJournalPath(run.ctx.paths.internalDir, run.sessionId));
}
