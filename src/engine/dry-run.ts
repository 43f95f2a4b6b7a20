import { basename, join, relative } from "node:path";
import type { BatonConfig } from "../config/index.js";
import { TaskNotFoundError } from "../shared/index.js";
import {
  checkOperationStart,
  findEntry,
  isCheckpointProcessAlive,
  OPERATION_RULES,
  readOpenCheckpoint,
  readSettledStore,
  storeContext,
  taskFolderPath,
} from "../state/index.js";
import { loadAgentCatalog } from "./default-agents.js";
import type { GateOperation } from "./gates/types.js";
import { preparePlan } from "./phases/prepare.js";
import { buildPrompt, delegationContext, plannedArtifact } from "./prompt.js";
import { extendDelegationPath, routeTask } from "./routing.js";

export interface DryRunPlan {
  taskNumber: number;
  operation: GateOperation;
  status: string;
  /** What GATE IN would say now. */
  gateIn: { ok: true; inProgress: string; done: string; forced: boolean } | { ok: false; reason: string };
  agent: string;
  agentSource: string;
  routeReason: string;
  artifactPath: string;
  metadataPath: string;
  timeoutMs: number;
  prompt: string;
  /** implement with a plan: the waves it would run, and where each phase would go. */
  plan?: {
    file: string;
    waves: {
      id: string;
      name: string;
      marker: string | null;
      settled: boolean;
      agent: string | null;
      routeReason: string | null;
    }[][];
  };
}

/**
 * `--dry-run`: everything a run would decide before it delegates — GATE IN's verdict, the route, the
 * paths, the exact prompt — computed from the files without writing any of them.
 */
export async function planOperation(request: {
  config: BatonConfig;
  operation: GateOperation;
  taskNumber: number;
  focus?: string | undefined;
  force?: boolean | undefined;
  agentOverride?: string | undefined;
  languageOverride?: string | undefined;
}): Promise<DryRunPlan> {
  const { config, operation, taskNumber } = request;
  const ctx = storeContext(config);
  const snapshot = await readSettledStore(ctx);
  const task = snapshot.state.tasks.find((t) => t.project_number === taskNumber);
  if (!task) throw new TaskNotFoundError(taskNumber, `${ctx.paths.state} (active tasks)`);
  const catalog = loadAgentCatalog(config.root);
  const route = routeTask(config, catalog, task, {
    operation,
    agentOverride: request.agentOverride,
    languageOverride: request.languageOverride,
  });
  const open = readOpenCheckpoint(ctx.paths.internalDir, taskNumber);
  const verdict = checkOperationStart(operation, task.status, request.force ?? false);
  const gateIn: DryRunPlan["gateIn"] =
    open && isCheckpointProcessAlive(open) !== false
      ? {
          ok: false,
          reason: `task ${taskNumber} has an open checkpoint: session ${open.sessionId} (pid ${open.pid})`,
        }
      : verdict.ok
        ? {
            ok: true,
            inProgress: OPERATION_RULES[operation].inProgress,
            done: OPERATION_RULES[operation].done,
            forced: verdict.forced,
          }
        : { ok: false, reason: `task ${taskNumber}: ${verdict.reason}` };
  const folder = taskFolderPath(ctx.paths.dir, task, config.artifactNaming);
  const metadataPath = join(folder, ".return-meta.json");
  const artifact = plannedArtifact(config, ctx.paths.dir, task, operation);
  const sessionId = "sess_0000000000_dryrun";
  const context = delegationContext({
    config,
    operation,
    sessionId,
    delegationPath: extendDelegationPath(extendDelegationPath(["baton"], operation), route.agent.name),
    task,
    route,
    folder,
    metadataPath,
    focus: request.focus,
  });
  const prepared =
    operation === "implement"
      ? preparePlan(config, catalog, task, folder, {
          agent: request.agentOverride,
          language: request.languageOverride,
        })
      : null;
  const result: DryRunPlan = {
    taskNumber,
    operation,
    status: task.status,
    gateIn,
    agent: route.agent.name,
    agentSource: route.agent.source.startsWith(`${config.root}/`)
      ? relative(config.root, route.agent.source)
      : `Baton's default agents/${basename(route.agent.source)}`,
    routeReason: route.reason,
    artifactPath: artifact.recordedPath,
    metadataPath: relative(config.root, metadataPath),
    timeoutMs: config.timeoutsMs[operation],
    prompt: buildPrompt(
      context,
      findEntry(snapshot.todo, taskNumber)?.title ?? task.project_name,
      artifact.recordedPath,
    ),
  };
  if (prepared) {
    result.plan = {
      file: relative(config.root, prepared.planPath),
      waves: prepared.waves.map((ids) =>
        ids.map((id) => {
          const phase = prepared.plan.phases.find((p) => p.id === id)!;
          const route = prepared.routes.get(id);
          return {
            id,
            name: phase.name,
            marker: phase.marker,
            settled: prepared.settled.has(id),
            agent: route?.agent.name ?? null,
            routeReason: route ? `${prepared.routeReasons.get(id)}; ${route.reason}` : null,
          };
        }),
      ),
    };
  }
  return result;
}
