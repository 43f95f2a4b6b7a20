import { rmSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type PgBoss from "pg-boss";
import type { BatonConfig } from "../../config/index.js";
import { closeQueuedGate, type DelegationOutcome } from "../../engine/index.js";
import { agentFileReaders } from "../../hosts/index.js";
import { batonPaths } from "../../shared/baton-paths.js";
import { appendEvent } from "../../shared/event-stream.js";
import type { Operation } from "../../state/index.js";
import type { BatchRun } from "../local.js";
import { applyWorkerCommit, git } from "./apply.js";
import { DelegateResult, QUEUE } from "./boss.js";
import { lostLeaseReaper } from "./heartbeat.js";

/** A job the coordinator enqueued, kept in `.baton/queue/<session>.json` until its result is recorded. */
export interface PendingJob {
  jobId: string;
  session: string;
  task: number;
  operation: Operation;
  base: string;
}

export const pendingDir = (root: string) => batonPaths(root).queue;

/** What collecting a job needs of the coordinator's run. */
interface JobOwner {
  config: BatonConfig;
  signal: AbortSignal;
}

type JobEnd = { result: DelegateResult } | { gaveUp: string } | { stopped: true };

/** Polls the job until it ends, saying which machine leased it as that changes. */
async function awaitJob(
  request: JobOwner,
  boss: PgBoss,
  job: PendingJob,
  lease: { machine: string },
): Promise<JobEnd> {
  const { task, operation, session } = job;
  const reap = lostLeaseReaper(boss);
  for (;;) {
    let state: PgBoss.JobWithMetadata | null = null;
    try {
      state = await boss.getJobById(QUEUE, job.jobId);
      const rows = await boss
        .getDb()
        .executeSql("SELECT machine FROM baton_lease WHERE job_id = $1 ORDER BY retry DESC LIMIT 1", [
          job.jobId,
        ]);
      const holder = (rows.rows[0] as { machine?: string } | undefined)?.machine;
      if (holder && holder !== lease.machine) {
        lease.machine = holder;
        appendEvent(request.config.root, {
          kind: "queue",
          session,
          task,
          operation,
          outcome: "leased",
          machine: holder,
        });
      }
    } catch {
      // PostgreSQL is away for a while: the job is safe there; ask again.
    }
    if (state?.state === "completed") {
      const parsed = DelegateResult.safeParse(state.output);
      return parsed.success ? { result: parsed.data } : { gaveUp: "the worker's result is not readable" };
    }
    if (state && (state.state === "failed" || state.state === "cancelled")) {
      return {
        gaveUp: `the queue gave up after ${state.retryCount + 1} attempts: ${JSON.stringify(state.output ?? {}).slice(0, 300)}`,
      };
    }
    if (request.signal.aborted) return { stopped: true };
    // A worker that died holding this job (or another) stops beating; failed now, it is retried elsewhere.
    await reap();
    await sleep(400);
  }
}

/** GATE OUT and COMMIT of the job's result on the coordinator, as a batch run. */
async function recordJob(
  request: JobOwner,
  job: PendingJob,
  result: DelegateResult | null,
  gaveUp: string | null,
): Promise<BatchRun> {
  const { task, operation, session } = job;
  let outcome: DelegationOutcome;
  try {
    outcome = result
      ? await takeWork(request.config.root, job, result)
      : { ok: false, reason: "exit", message: gaveUp ?? "no result", output: "" };
  } catch (error) {
    outcome = { ok: false, reason: "exit", message: (error as Error).message, output: "" };
  }
  const run: BatchRun = { task, operation, ok: false, session, durationMs: 0 };
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
    return closed.ok
      ? { ...run, ok: true, status: closed.status }
      : { ...run, code: closed.code, message: closed.message, status: closed.status };
  } catch (error) {
    return { ...run, code: "ALREADY_RECORDED", message: (error as Error).message };
  }
}

/** Waits for the job, takes the worker's files, and closes the gate: recorded exactly once. */
export async function collectJob(request: JobOwner, boss: PgBoss, job: PendingJob): Promise<BatchRun> {
  const root = request.config.root;
  const { task, operation, session } = job;
  const lease = { machine: "" };
  const end = await awaitJob(request, boss, job, lease);
  if ("stopped" in end) {
    const message = "the job stays queued; baton run --queue again records it";
    return { task, operation, ok: false, session, code: "STOPPED", message, durationMs: 0 };
  }
  const result = "result" in end ? end.result : null;
  const run = await recordJob(request, job, result, "gaveUp" in end ? end.gaveUp : null);
  if (result?.usage?.["costUsd"] !== undefined) run.costUsd = result.usage["costUsd"];
  if (result) await git(root, ["branch", "-D", result.branch]).catch(() => undefined);
  rmSync(join(pendingDir(root), `${session}.json`), { force: true });
  const machine = lease.machine;
  const outcome = run.ok ? "recorded" : "failed";
  appendEvent(root, { kind: "queue", session, task, operation, outcome, ...(machine ? { machine } : {}) });
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
