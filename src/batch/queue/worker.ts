import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type PgBoss from "pg-boss";
import type { SandboxMode } from "../../config/index.js";
import { sandboxPolicy } from "../../engine/index.js";
import {
  type AgentDefinition,
  createRunner,
  type DelegationContext,
  probeSandbox,
  type RunnerConfig,
  type RunOutcome,
  removeDeadRunsFiles,
  type SandboxPolicy,
} from "../../runners/index.js";
import { SandboxUnavailableError } from "../../shared/index.js";
import { git } from "./apply.js";
import {
  DelegateJob,
  type DelegateResult,
  machineName,
  openQueue,
  QUEUE,
  type QueueOptions,
} from "./boss.js";
import { keepLease, lostLeaseReaper } from "./heartbeat.js";

/**
 * `baton worker`: takes DELEGATE jobs under a lease, one at a time. For each: fetch the coordinator's
 * base commit into this clone, run the agent with this machine's runner in a worktree of its own, commit
 * what it wrote to `baton/<session>/<attempt>`, push that branch to the coordinator, and complete the job
 * with the branch and how the agent ended. The store is never touched here: the coordinator records.
 * A result whose lease was lost meanwhile (the job was retried elsewhere) is dropped, not delivered.
 */
export interface WorkerRequest {
  url: string;
  /** This machine's clone of the repository. */
  repo: string;
  runner: RunnerConfig;
  signal: AbortSignal;
  /** `off`: this machine runs no sandbox, so it serves only coordinators that run unsandboxed on purpose. */
  sandbox?: SandboxMode;
  machine?: string | undefined;
  /** Stop after this many jobs (tests, benchmarks); default: run until stopped. */
  maxJobs?: number | undefined;
  queue?: QueueOptions;
  onEvent?: ((line: string) => void) | undefined;
}

export interface WorkerReport {
  machine: string;
  completed: number;
  failed: number;
  dropped: number;
}

export async function runWorker(request: WorkerRequest): Promise<WorkerReport> {
  const machine = request.machine ?? machineName();
  const say = (line: string) => request.onEvent?.(`[${machine}] ${line}`);
  requireWorkerSandbox(request.sandbox ?? "bubblewrap");
  const boss = await openQueue(request.url, {
    ...request.queue,
    onError: (error) => say(`queue: ${error.message}`),
  });
  const report: WorkerReport = { machine, completed: 0, failed: 0, dropped: 0 };
  say("connected to the queue, waiting for jobs");
  const reap = lostLeaseReaper(boss, (ids) =>
    say(`retrying ${ids.length} job(s) whose worker stopped beating`),
  );
  try {
    while (
      !request.signal.aborted &&
      (request.maxJobs === undefined || report.completed + report.failed < request.maxJobs)
    ) {
      let jobs: PgBoss.JobWithMetadata[];
      try {
        jobs = (await boss.fetch(QUEUE, { batchSize: 1, includeMetadata: true })) as PgBoss.JobWithMetadata[];
      } catch (error) {
        say(`cannot reach the queue (${(error as Error).message}); trying again`);
        await sleep(1000, undefined, { signal: request.signal }).catch(() => undefined);
        continue;
      }
      const job = jobs[0];
      if (!job) {
        await reap();
        await sleep(500, undefined, { signal: request.signal }).catch(() => undefined);
        continue;
      }
      await take(boss, job, request, machine, say, report);
    }
  } finally {
    await boss.stop({ graceful: false, wait: false }).catch(() => undefined);
  }
  return report;
}

async function take(
  boss: PgBoss,
  job: PgBoss.JobWithMetadata,
  request: WorkerRequest,
  machine: string,
  say: (line: string) => void,
  report: WorkerReport,
): Promise<void> {
  const parsed = DelegateJob.safeParse(job.data);
  if (!parsed.success) {
    await boss.fail(QUEUE, job.id, { message: "not a Baton DELEGATE job" });
    report.failed++;
    return;
  }
  const data = parsed.data;
  const retry = job.retryCount;
  await boss
    .getDb()
    .executeSql(
      "INSERT INTO baton_lease (job_id, retry, machine, heartbeat_at) VALUES ($1, $2, $3, now()) ON CONFLICT DO NOTHING",
      [job.id, retry, machine],
    );
  const stopBeating = keepLease(boss, job.id, retry);
  try {
    await deliver(boss, job, data, request, machine, say, report);
  } finally {
    stopBeating();
  }
}

/** Runs the agent and completes the job, unless its lease was lost meanwhile. */
async function deliver(
  boss: PgBoss,
  job: PgBoss.JobWithMetadata,
  data: DelegateJob,
  request: WorkerRequest,
  machine: string,
  say: (line: string) => void,
  report: WorkerReport,
): Promise<void> {
  const retry = job.retryCount;
  say(`task ${data.task} ${data.operation} (${data.session}, attempt ${retry + 1})`);
  let result: DelegateResult;
  try {
    result = await delegate(data, request, machine, retry);
  } catch (error) {
    say(`task ${data.task} failed: ${(error as Error).message}`);
    await boss.fail(QUEUE, job.id, { message: (error as Error).message, machine }).catch(() => undefined);
    report.failed++;
    return;
  }
  const now = await boss.getJobById(QUEUE, job.id).catch(() => null);
  if (now?.state !== "active" || now.retryCount !== retry) {
    say(`task ${data.task}: the lease was lost meanwhile; this result is dropped`);
    await git(request.repo, ["push", "-q", data.remote, `:refs/heads/${result.branch}`]).catch(
      () => undefined,
    );
    report.dropped++;
    return;
  }
  await boss.complete(QUEUE, job.id, result);
  say(
    `task ${data.task} ${data.operation}: ${result.ok ? "done" : `agent failed (${result.reason})`}, pushed ${result.branch}`,
  );
  report.completed++;
}

async function delegate(
  data: DelegateJob,
  request: WorkerRequest,
  machine: string,
  retry: number,
): Promise<DelegateResult> {
  const attempt = randomUUID().slice(0, 8);
  const branch = `baton/${data.session}/${attempt}`;
  // Every branch tip of the coordinator: the base is on one of them (a sha alone is not always fetchable).
  await git(request.repo, ["fetch", "-q", data.remote, "+refs/heads/*:refs/remotes/baton-coordinator/*"]);
  await git(request.repo, ["cat-file", "-e", `${data.base}^{commit}`]);
  // Named after this process: the next job here, or on a worker beside it, removes what a killed one left.
  removeDeadRunsFiles(tmpdir(), "baton-worker-");
  const dir = mkdtempSync(join(tmpdir(), `baton-worker-${process.pid}-`));
  const tree = join(dir, "tree");
  await git(request.repo, ["worktree", "add", "-q", "--detach", tree, data.base]);
  try {
    const runner = createRunner(request.runner, { baseDir: request.repo });
    const sandbox = await workerSandbox(request.repo, data, tree, request.sandbox ?? "bubblewrap");
    const outcome: RunOutcome = await runner.run(
      {
        context: data.context as DelegationContext,
        prompt: data.prompt,
        cwd: tree,
        agent: data.agent as AgentDefinition,
      },
      { signal: request.signal, timeoutMs: data.timeoutMs, onEvent: () => undefined, sandbox },
    );
    await git(tree, ["add", "-A"]);
    await git(tree, [
      "-c",
      "user.name=Baton worker",
      "-c",
      `user.email=baton-worker@${machine.replace(/[^\w.-]/g, "-")}`,
      "commit",
      "-q",
      "--allow-empty",
      "--no-verify",
      "-m",
      `baton worker ${machine}: task ${data.task} ${data.operation} (${data.session}, attempt ${retry + 1})`,
    ]);
    const commit = await git(tree, ["rev-parse", "HEAD"]);
    await git(tree, ["push", "-q", data.remote, `HEAD:refs/heads/${branch}`]);
    return {
      attempt,
      retryCount: retry,
      machine,
      branch,
      commit,
      ok: outcome.ok,
      ...(outcome.ok ? {} : { reason: outcome.reason, message: outcome.message }),
      output: outcome.output.slice(-64 * 1024),
      ...(outcome.usage ? { usage: outcome.usage as Record<string, number> } : {}),
    };
  } finally {
    await git(request.repo, ["worktree", "remove", "--force", tree]).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A worker that cannot start the sandbox does not start: it would fail every job it took, and, failing fast,
 * take most of them, spending the retries that healthy workers could have used.
 */
function requireWorkerSandbox(mode: SandboxMode): void {
  if (mode === "off") return;
  const probe = probeSandbox();
  if (probe.ok) return;
  throw new SandboxUnavailableError(`this worker cannot start the agents' sandbox: ${probe.reason}`, {
    hint: `${probe.fix.replace(/--sandbox off$/, "`baton worker --sandbox off`")} (it then takes only jobs whose coordinator runs with --sandbox off)`,
  });
}

/**
 * The sandbox the coordinator asked for, made on this machine around the worker's tree; a worker that
 * cannot make one fails the job with the reason rather than run the agent unguarded.
 */
async function workerSandbox(
  repo: string,
  data: DelegateJob,
  tree: string,
  mode: SandboxMode,
): Promise<SandboxPolicy | undefined> {
  if (data.protect === null) return undefined;
  if (mode === "off")
    throw new Error("the coordinator asked for a sandbox, and this worker was started with --sandbox off");
  const probe = probeSandbox();
  if (!probe.ok)
    throw new Error(`the agent's sandbox cannot start on this worker: ${probe.reason}; ${probe.fix}`);
  return sandboxPolicy(repo, data.protect ?? [], tree, [], data.frozen ?? []);
}
