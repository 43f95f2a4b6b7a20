import { mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import type PgBoss from "pg-boss";
import { openQueuedGate, recoverOpenRuns, runOperation } from "../../engine/index.js";
import { agentFileReaders } from "../../hosts/index.js";
import { writeFileNamed } from "../../shared/atomic-write.js";
import { appendEvent } from "../../shared/event-stream.js";
import { Stopwatch } from "../../shared/time.js";
import type { Operation } from "../../state/index.js";
import { readOpenCheckpoint, storeContext } from "../../state/index.js";
import { type BatchReport, type BatchRequest, type BatchRun, runBatch } from "../local.js";
import { git } from "./apply.js";
import { openQueue, type QueueOptions, sendJob } from "./boss.js";
import { collectJob, type PendingJob, pendingDir } from "./collect-job.js";
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
  const started = new Stopwatch();
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
      execution: { signal: request.signal, isolate: "worktree", maxCost: cap },
    });
    const run: BatchRun = {
      task,
      operation: "implement",
      ok: report.result.ok && !report.budget,
      session: report.sessionId,
      status: report.status,
      durationMs: started.elapsedMs(),
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
      durationMs: started.elapsedMs(),
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
      await collectJob(request, boss, job);
    }),
  );
}

async function delegateThroughQueue(
  request: QueueRequest,
  boss: PgBoss,
  task: number,
  operation: Operation,
): Promise<BatchRun> {
  const started = new Stopwatch();
  const gate = await openQueuedGate({
    agentFiles: agentFileReaders(),
    config: request.config,
    operation,
    taskNumber: task,
  });
  if (!gate.ok) return { task, operation, ok: false, code: gate.code, message: gate.reason, durationMs: 0 };
  const root = request.config.root;
  const base = await git(root, ["rev-parse", "HEAD"]);
  const margin = request.leaseMarginSeconds ?? 300;
  const jobId = await sendJob(
    boss,
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
      protect: gate.protect,
      frozen: gate.frozen,
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
  writeFileNamed(join(pendingDir(root), `${gate.sessionId}.json`), JSON.stringify(job));
  appendEvent(root, { kind: "queue", session: gate.sessionId, task, operation, outcome: "enqueued" });
  request.onProgress?.({ type: "started", task, operation, pid: null });
  const run = await collectJob(request, boss, job);
  return { ...run, durationMs: started.elapsedMs() };
}
