import { basename, relative } from "node:path";
import type { AgentFileReader } from "../../agents/index.js";
import { plannedArtifact } from "../../agents/index.js";
import type { BatonConfig } from "../../config/index.js";
import type { DependencyReading } from "../../plan/index.js";
import type { Operation } from "../../state/index.js";
import { isCheckpointProcessAlive, readOpenCheckpoint } from "../../state/index.js";
import { decideGateIn } from "../gate-in/index.js";
import { prepareRun, type Run, runPrompt } from "../run/index.js";

export interface DryRunPlan {
  taskNumber: number;
  operation: Operation;
  /** The status GATE IN would see (after the rollback of a dead run, see `recovers`). */
  status: string;
  /** What GATE IN would say now: the same decision the real run makes. */
  gateIn: { ok: true; inProgress: string; done: string; forced: boolean } | { ok: false; reason: string };
  /** A dead run of this task that the real run would resolve first (`baton recover`). */
  recovers?: string;
  /** The runner the real run would start, validated as it would be. */
  runner: { kind: string; detail?: string };
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
    /** How the phases' dependencies were read: declared, or the plan's order when it declares none. */
    reading: DependencyReading;
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
 * `--dry-run`: everything a run would decide before it delegates — GATE IN's verdict, the runner, the
 * route, the paths, the exact prompt — from the same prepared run and the same GATE IN decision as the
 * real run, without writing anything and without the lock.
 */
export async function planOperation(request: {
  config: BatonConfig;
  agentFiles: readonly AgentFileReader[];
  operation: Operation;
  taskNumber: number;
  runner: { kind: string; detail?: string };
  focus?: string | undefined;
  force?: boolean | undefined;
  agentOverride?: string | undefined;
  languageOverride?: string | undefined;
}): Promise<DryRunPlan> {
  const { config } = request;
  const run = await prepareRun({ ...request, mode: "headless", sessionId: "sess_0000000000_dryrun" });
  const open = readOpenCheckpoint(run.ctx.paths.internalDir, run.taskNumber);
  const alive = open ? isCheckpointProcessAlive(open) : false;
  // The real run resolves a dead headless run before GATE IN; a rollback is what a dry run can promise.
  const dead = open !== null && open.mode !== "session" && alive === false;
  const status = dead ? open.previousStatus : run.task.status;
  const decision = decideGateIn({
    taskNumber: run.taskNumber,
    operation: run.operation,
    status,
    force: run.force,
    open: dead ? null : open,
    alive,
  });
  const artifact = plannedArtifact(config, run.ctx.paths.dir, run.task, run.operation);
  const result: DryRunPlan = {
    taskNumber: run.taskNumber,
    operation: run.operation,
    status,
    gateIn: decision.ok
      ? { ok: true, inProgress: decision.inProgress, done: decision.done, forced: decision.forced }
      : { ok: false, reason: decision.reason },
    runner: request.runner,
    agent: run.route.agent.name,
    agentSource: run.route.agent.source.startsWith(`${config.root}/`)
      ? relative(config.root, run.route.agent.source)
      : `Baton's default agents/${basename(run.route.agent.source)}`,
    routeReason: run.route.reason,
    artifactPath: artifact.recordedPath,
    metadataPath: relative(config.root, run.metadataPath),
    timeoutMs: config.timeoutsMs[run.operation],
    prompt: runPrompt(run, artifact.recordedPath),
  };
  if (dead) {
    result.recovers = `session ${open.sessionId} (${open.operation}) died; the run resolves it first: its result is recorded if it verifies, else the task goes back to ${open.previousStatus}`;
  }
  if (run.plan) result.plan = planWaves(run);
  return result;
}

function planWaves(run: Run): NonNullable<DryRunPlan["plan"]> {
  const prepared = run.plan!;
  return {
    file: relative(run.config.root, prepared.planPath),
    reading: prepared.reading,
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
