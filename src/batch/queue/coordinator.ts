import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type PgBoss from "pg-boss";
import {
  closeQueuedGate,
  type DelegationOutcome,
  openQueuedGate,
  recoverOpenRuns,
  runOperation,
} from "../../engine/index.js";
import { agentFileReaders } from "../../hosts/index.js";
import { batonPaths } from "../../shared/baton-paths.js";
import { appendEvent } from "../../shared/event-stream.js";
import type { Operation } from "../../state/index.js";
import { readOpenCheckpoint, storeContext } from "../../state/index.js";
import { type BatchReport, type BatchRequest, type BatchRun, runBatch } from "../local.js";
import { applyWorkerCommit, git } from "./apply.js";
import { DelegateResult, openQueue, QUEUE, type QueueOptions } from "./boss.js";
import { QueueRunner } from "./runner.js";

/**
 * `baton run --queue URL`: the coordinator. It is the store's single writer: GATE IN here, DELEGATE as a
 * job on the queue, and when a worker's branch is back, its files are taken into this tree, GATE OUT
 * verifies them (every gate of a headless run) and COMMIT records them — so state.json and TODO.md are
 * never merged across machines. A run's job id is kept in `.baton/queue/<session>.json`: a coordinator
 * killed mid-run picks its jobs up again when started again. An `implement` keeps its plan run here and
 * sends each phase call to the queue (QueueRunner).
 */
export interface QueueRequest extends BatchRequest {
  url: string;
  /** How workers reach this repository (default: its path, for workers on this machine or a shared disk). */
  remote?: string | undefined;
  /** Extra seconds past the agent's timeout before a silent worker's lease expires. */
  leaseMarginSeconds?: number | undefined;
  queue?: QueueOptions;
}

interface PendingJob {
  jobId: string;
  session: string;
  task: number;
  operation: Operation;
  base: string;
}

const pendingDir = (root: string) => batonPaths(root).queue;

export async function runQueued(request: QueueRequest): Promise<BatchReport> {
  const boss = await openQueue(request.url, {
    ...request.queue,
    onError: (error) =>
      request.onProgress?.({
        type: "event",
        event: { ts: new Date().toISOString(), kind: "queue", outcome: "error", message: error.message },
      }),
  });
  try {
    await resumePending(request, boss);
    return await runBatch(request, async (task, operation, cap) => {
      if (operation === "implement") return implementHere(request, boss, task, cap);
      return delegateThroughQueue(request, boss, task, operation);
    });
  } finally {
    await boss.stop({ graceful: false, wait: false }).catch(() => undefined);
  }
}

/**
 * An implement runs its plan here (waves, barriers, checks, a commit per phase, each phase in a worktree),
 * with every phase call a job on the queue: the workers run the agents, this process keeps the plan.
 */
async function implementHere(
  request: QueueRequest,
  boss: PgBoss,
  task: number,
  cap: number | undefined,
): Promise<BatchRun> {
  const started = Date.now();
  request.onProgress?.({ type: "started", task, operation: "implement", pid: process.pid });
  const runner = new QueueRunner(boss, {
    remote: request.remote,
    leaseMarginSeconds: request.leaseMarginSeconds ?? 300,
  });
  try {
    const report = await runOperation({
      agentFiles: agentFileReaders(),
      config: request.config,
      operation: "implement",
      taskNumber: task,
      runner,
      signal: request.signal,
      isolate: "worktree",
      maxCost: cap,
    });
    const run: BatchRun = {
      task,
      operation: "implement",
      ok: report.result.ok && !report.budget,
      session: report.sessionId,
      status: report.status,
      durationMs: Date.now() - started,
    };
    if (!report.result.ok) Object.assign(run, { code: report.result.code, message: report.result.message });
    if (report.usage?.costUsd !== undefined) run.costUsd = report.usage.costUsd;
    return run;
  } catch (error) {
    return {
      task,
      operation: "implement",
      ok: false,
      code: "RUN_FAILED",
      message: (error as Error).message,
      durationMs: Date.now() - started,
    };
  }
}

/** Jobs a killed coordinator left behind: each is waited for and recorded before anything new starts. */
async function resumePending(request: QueueRequest, boss: PgBoss): Promise<void> {
  let names: string[] = [];
  try {
    names = readdirSync(pendingDir(request.config.root)).filter((n) => n.endsWith(".json"));
  } catch {
    return;
  }
  await Promise.all(
    names.map(async (name) => {
      const path = join(pendingDir(request.config.root), name);
      const job = JSON.parse(readFileSync(path, "utf8")) as PendingJob;
      const open = readOpenCheckpoint(storeContext(request.config).paths.internalDir, job.task);
      if (!open || open.sessionId !== job.session) return rmSync(path, { force: true });
      // Recorded before the kill, commit still owed: recovery commits it.
      if (open.recorded) {
        await recoverOpenRuns(request.config, job.task);
        return rmSync(path, { force: true });
      }
      await finish(request, boss, job);
    }),
  );
}

async function delegateThroughQueue(
  request: QueueRequest,
  boss: PgBoss,
  task: number,
  operation: Operation,
): Promise<BatchRun> {
  const started = Date.now();
  const gate = await openQueuedGate({
    agentFiles: agentFileReaders(),
    config: request.config,
    operation,
    taskNumber: task,
  });
  if (!gate.ok)
    return { task, operation, ok: false, code: "GATE_IN_REFUSED", message: gate.reason, durationMs: 0 };
  const root = request.config.root;
  const base = await git(root, ["rev-parse", "HEAD"]);
  const margin = request.leaseMarginSeconds ?? 300;
  const jobId = await boss.send(
    QUEUE,
    {
      remote: request.remote ?? root,
      base,
      session: gate.sessionId,
      task,
      operation,
      prompt: gate.prompt,
      context: gate.context,
      agent: gate.agent,
      timeoutMs: gate.timeoutMs,
    },
    {
      singletonKey: gate.sessionId,
      expireInSeconds: Math.ceil(gate.timeoutMs / 1000) + margin,
      retryLimit: 5,
      retryDelay: 1,
    },
  );
  if (!jobId) throw new Error(`the queue refused the job for ${gate.sessionId}`);
  const job: PendingJob = { jobId, session: gate.sessionId, task, operation, base };
  mkdirSync(pendingDir(root), { recursive: true });
  writeFileSync(join(pendingDir(root), `${gate.sessionId}.json`), JSON.stringify(job));
  appendEvent(root, { kind: "queue", session: gate.sessionId, task, operation, outcome: "enqueued" });
  request.onProgress?.({ type: "started", task, operation, pid: null });
  const run = await finish(request, boss, job);
  return { ...run, durationMs: Date.now() - started };
}

/** Waits for the job, takes the worker's files, and closes the gate: recorded exactly once. */
async function finish(request: QueueRequest, boss: PgBoss, job: PendingJob): Promise<BatchRun> {
  const root = request.config.root;
  const { task, operation, session } = job;
  let machine = "";
  let result: DelegateResult | null = null;
  let gaveUp: string | null = null;
  for (;;) {
    let state: PgBoss.JobWithMetadata | null = null;
    try {
      state = await boss.getJobById(QUEUE, job.jobId);
      const lease = await boss
        .getDb()
        .executeSql("SELECT machine FROM baton_lease WHERE job_id = $1 ORDER BY retry DESC LIMIT 1", [
          job.jobId,
        ]);
      const holder = (lease.rows[0] as { machine?: string } | undefined)?.machine;
      if (holder && holder !== machine) {
        machine = holder;
        appendEvent(root, { kind: "queue", session, task, operation, outcome: "leased", machine });
      }
    } catch {
      // PostgreSQL is away for a while: the job is safe there; ask again.
    }
    if (state?.state === "completed") {
      const parsed = DelegateResult.safeParse(state.output);
      if (parsed.success) result = parsed.data;
      else gaveUp = "the worker's result is not readable";
      break;
    }
    if (state && (state.state === "failed" || state.state === "cancelled")) {
      gaveUp = `the queue gave up after ${state.retryCount + 1} attempts: ${JSON.stringify(state.output ?? {}).slice(0, 300)}`;
      break;
    }
    if (request.signal.aborted) {
      return {
        task,
        operation,
        ok: false,
        session,
        code: "STOPPED",
        message: "the job stays queued; baton run --queue again records it",
        durationMs: 0,
      };
    }
    await sleep(400);
  }
  let outcome: DelegationOutcome;
  try {
    outcome = result
      ? await takeWork(root, job, result)
      : { ok: false, reason: "exit", message: gaveUp ?? "no result", output: "" };
  } catch (error) {
    outcome = { ok: false, reason: "exit", message: (error as Error).message, output: "" };
  }
  let run: BatchRun = { task, operation, ok: false, session, durationMs: 0 };
  try {
    const closed = await closeQueuedGate({
      agentFiles: agentFileReaders(),
      config: request.config,
      operation,
      taskNumber: task,
      sessionId: session,
      outcome,
      usage: result?.usage,
    });
    run = closed.ok
      ? { ...run, ok: true, status: closed.status }
      : { ...run, code: closed.code, message: closed.message, status: closed.status };
  } catch (error) {
    run = { ...run, code: "ALREADY_RECORDED", message: (error as Error).message };
  }
  if (result?.usage?.["costUsd"] !== undefined) run.costUsd = result.usage["costUsd"];
  if (result) await git(root, ["branch", "-D", result.branch]).catch(() => undefined);
  rmSync(join(pendingDir(root), `${session}.json`), { force: true });
  appendEvent(root, {
    kind: "queue",
    session,
    task,
    operation,
    outcome: run.ok ? "recorded" : "failed",
    ...(machine ? { machine } : {}),
  });
  return run;
}

/** The worker's commit in this tree, and how its agent ended. */
async function takeWork(root: string, job: PendingJob, result: DelegateResult): Promise<DelegationOutcome> {
  const problem = await applyWorkerCommit(root, job.base, result);
  if (problem) return { ok: false, reason: "exit", message: problem, output: "" };
  return result.ok
    ? { ok: true, output: result.output }
    : {
        ok: false,
        reason: delegationReason(result.reason),
        message: result.message ?? "the agent failed",
        output: result.output,
      };
}

const REASONS = ["exit", "timeout", "aborted", "crashed", "spawn_failed", "agent_error"] as const;

/** The worker's runner failure as the checkpoint machine names it (RUNNER_TIMEOUT, …); `exit` otherwise. */
function delegationReason(reason: string | undefined): (typeof REASONS)[number] {
  return (REASONS as readonly string[]).includes(reason ?? "")
    ? (reason as (typeof REASONS)[number])
    : "exit";
}
