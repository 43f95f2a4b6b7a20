import { setTimeout as sleep } from "node:timers/promises";
import type PgBoss from "pg-boss";
import {
  failWithoutOutput,
  finishRun,
  type Runner,
  type RunnerDescription,
  type RunOptions,
  type RunOutcome,
  type RunRequest,
} from "../../runners/index.js";
import { runGit } from "../../shared/git.js";
import { Stopwatch } from "../../shared/time.js";
import { applyWorkerCommit } from "./apply.js";
import { DelegateResult, QUEUE, sendJob } from "./boss.js";
import { lostLeaseReaper } from "./heartbeat.js";

/**
 * A runner whose agent runs on a worker: the coordinator's plan run (waves, hard barriers, checks, one
 * commit per phase) stays here, and each phase call becomes a DELEGATE job. The worker starts from the
 * work tree's HEAD, and its commit's files are brought into the phase's work tree before the barrier
 * looks at them, exactly where a local agent would have written them.
 */
export class QueueRunner implements Runner {
  readonly kind = "queue";

  constructor(
    private readonly boss: PgBoss,
    private readonly options: { remote?: string | undefined; leaseMarginSeconds: number },
  ) {}

  describe(): RunnerDescription {
    return { kind: this.kind, detail: "a baton worker, through the queue" };
  }

  async run(request: RunRequest, options: RunOptions): Promise<RunOutcome> {
    const started = new Stopwatch();
    const fail = (message: string, reason: "exit" | "aborted" = "exit"): RunOutcome =>
      failWithoutOutput(reason, message, started.elapsedMs(), options);
    const base = await runGit(request.cwd, ["rev-parse", "HEAD"]);
    const top = await runGit(request.cwd, ["rev-parse", "--git-common-dir"]);
    if (!base.ok || !top.ok) return fail(`not a git work tree: ${request.cwd}`);
    const { key, jobId } = await this.enqueue(request, options, base.stdout.trim());
    if (!jobId) return fail(`the queue refused the job ${key}`);
    options.onEvent({ type: "started", runner: "queue", pid: null });
    const reap = lostLeaseReaper(this.boss);
    for (;;) {
      if (options.signal.aborted) {
        await this.boss.cancel(QUEUE, jobId).catch(() => undefined);
        return fail("aborted; the job was cancelled", "aborted");
      }
      const job = await this.boss.getJobById(QUEUE, jobId).catch(() => null);
      if (job?.state === "completed") {
        const parsed = DelegateResult.safeParse(job.output);
        if (!parsed.success) return fail("the worker's result is not readable");
        return this.take(request.cwd, base.stdout.trim(), parsed.data, started, options);
      }
      if (job && (job.state === "failed" || job.state === "cancelled")) {
        return fail(
          `the queue gave up after ${job.retryCount + 1} attempts: ${JSON.stringify(job.output ?? {}).slice(0, 300)}`,
        );
      }
      await reap();
      await sleep(400);
    }
  }

  /** The phase's or operation's job, once per session, phase and iteration (a singleton key). */
  private async enqueue(request: RunRequest, options: RunOptions, base: string) {
    const { context } = request;
    const key = `${context.session_id}:${context.phase?.id ?? context.operation}:${context.iteration ?? 1}`;
    const jobId = await sendJob(
      this.boss,
      {
        remote: this.options.remote ?? request.cwd,
        base,
        session: `${context.session_id}-${(context.phase?.id ?? "run").replace(/[^\w.-]/g, "_")}-${context.iteration ?? 1}`,
        task: context.task_context.task_number,
        operation: context.operation,
        prompt: request.prompt,
        context,
        agent: request.agent ?? { name: "agent" },
        timeoutMs: options.timeoutMs,
        protect: options.sandbox ? [...(options.sandbox.protect ?? [])] : null,
        frozen: [...(options.sandbox?.protectFolders ?? [])],
      },
      {
        singletonKey: key,
        expireInSeconds: Math.ceil(options.timeoutMs / 1000) + this.options.leaseMarginSeconds,
        retryLimit: 5,
        retryDelay: 1,
      },
    );
    return { key, jobId };
  }

  private async take(
    cwd: string,
    base: string,
    result: DelegateResult,
    started: Stopwatch,
    options: RunOptions,
  ): Promise<RunOutcome> {
    const record = {
      output: result.output,
      stderr: "",
      exitCode: result.ok ? 0 : 1,
      signal: null,
      pid: null,
      ...(result.usage ? { usage: result.usage } : {}),
    };
    const problem = await applyWorkerCommit(cwd, base, result);
    if (problem) {
      return finishRun(
        { ...record, ok: false, reason: "exit", message: problem, durationMs: started.elapsedMs() },
        options,
      );
    }
    await runGit(cwd, ["branch", "-D", result.branch]);
    const durationMs = started.elapsedMs();
    return finishRun(
      result.ok
        ? { ...record, ok: true, durationMs }
        : { ...record, ok: false, reason: "exit", message: result.message ?? "the agent failed", durationMs },
      options,
    );
  }
}
