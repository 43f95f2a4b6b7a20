import { resolve } from "node:path";
import {
  type BatchProgress,
  type BatchReport,
  parseTaskRanges,
  type RunTarget,
  runBatch,
  runQueued,
  runWorker,
  type WorkerReport,
} from "../../batch/index.js";
import { loadConfig } from "../../config/index.js";
import { UsageError } from "../../shared/index.js";
import { everyOperation } from "../../shared/per-operation.js";
import { runnerConfig, sandboxMode } from "./operate.js";

export interface RunManyOptions {
  repo: string;
  tasks?: string | undefined;
  status?: string[] | undefined;
  language?: string[] | undefined;
  allReady?: boolean | undefined;
  until?: string | undefined;
  concurrency?: string | undefined;
  maxCost?: string | undefined;
  runner?: string | undefined;
  script?: string | undefined;
  timeout?: string | undefined;
  sandbox?: string | undefined;
  queue?: string | undefined;
  remote?: string | undefined;
}

const TARGETS: Record<string, RunTarget> = {
  researched: "researched",
  planned: "planned",
  implemented: "completed",
  completed: "completed",
};

const list = (values: string[] | undefined) =>
  values
    ?.flatMap((v) => v.split(","))
    .map((v) => v.trim().toLowerCase().replace(/[ -]/g, "_"))
    .filter(Boolean);

/** The tasks `baton run` selects by number (`--tasks 12,14-16`), if it selects by number. */
function selectedNumbers(options: RunManyOptions): number[] | undefined {
  try {
    return options.tasks === undefined ? undefined : parseTaskRanges(options.tasks);
  } catch (error) {
    throw new UsageError(`--tasks: ${(error as Error).message}`);
  }
}

/** `--until`, `--concurrency` and `--max-cost`, checked. */
function runLimits(options: RunManyOptions) {
  const until = TARGETS[options.until ?? "completed"];
  if (!until)
    throw new UsageError(
      `--until must be researched, planned, implemented or completed, got "${options.until}"`,
    );
  const concurrency = options.concurrency === undefined ? 2 : Number(options.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64) {
    throw new UsageError(`--concurrency must be a whole number from 1 to 64, got "${options.concurrency}"`);
  }
  const maxCost = options.maxCost === undefined ? undefined : Number(options.maxCost);
  if (maxCost !== undefined && !(Number.isFinite(maxCost) && maxCost >= 0)) {
    throw new UsageError(`--max-cost must be an amount in US dollars (e.g. 0.50), got "${options.maxCost}"`);
  }
  return { until, concurrency, maxCost };
}

/** The configuration with `--timeout` applied: the queue's jobs carry the agent's timeout (their lease follows it). */
async function runConfig(options: RunManyOptions) {
  const loaded = await loadConfig(options.repo);
  const seconds = options.timeout === undefined ? undefined : Number(options.timeout);
  if (seconds !== undefined && !(seconds > 0)) {
    throw new UsageError(`--timeout must be a number of seconds, got "${options.timeout}"`);
  }
  const ms = seconds === undefined ? undefined : Math.round(seconds * 1000);
  const sandbox = sandboxMode(options.sandbox) ?? loaded.sandbox;
  return ms === undefined
    ? { ...loaded, sandbox }
    : { ...loaded, sandbox, timeoutsMs: everyOperation(() => ms) };
}

/** `baton run`: options checked, then the batch (see src/batch). */
export async function runMany(
  options: RunManyOptions,
  signal: AbortSignal,
  onProgress?: (event: BatchProgress) => void,
): Promise<BatchReport> {
  const tasks = selectedNumbers(options);
  if (!tasks && !options.status && !options.language && !options.allReady) {
    throw new UsageError("name the tasks to run", {
      hint: "Use --tasks 12,14-16, --status researched, --language lean or --all-ready.",
    });
  }
  const limits = runLimits(options);
  const config = await runConfig(options);
  const operationArgs = [
    ...(options.runner ? ["--runner", options.runner] : []),
    // Runs start in the repository root: a path given here is made absolute first.
    ...(options.script ? ["--script", resolve(options.script)] : []),
    ...(options.timeout ? ["--timeout", options.timeout] : []),
    ...(options.sandbox ? ["--sandbox", options.sandbox] : []),
  ];
  const selection = {
    tasks,
    statuses: list(options.status),
    languages: list(options.language),
    allReady: options.allReady,
  };
  const request = { config, selection, ...limits, operationArgs, signal, onProgress };
  if (options.queue === undefined) return runBatch(request);
  return runQueued({
    ...request,
    url: queueUrl(options.queue),
    remote: options.remote,
    leaseMarginSeconds: leaseMarginSeconds(),
    queue: { maintenanceSeconds: maintenanceSeconds() },
  });
}

export function queueUrl(value: string): string {
  if (!/^postgres(ql)?:\/\//.test(value)) {
    throw new UsageError(`--queue must be a PostgreSQL URL (postgres://user@host:port/db), got "${value}"`);
  }
  return value;
}

/** How often lost leases are expired; BATON_QUEUE_MAINTENANCE_S shortens it (tests, benchmarks). */
export function maintenanceSeconds(): number | undefined {
  const value = Number(process.env["BATON_QUEUE_MAINTENANCE_S"]);
  return Number.isFinite(value) && value >= 1 ? value : undefined;
}

/** Seconds a silent worker keeps a job past the agent's timeout; BATON_QUEUE_LEASE_MARGIN_S sets it. */
export function leaseMarginSeconds(): number | undefined {
  const value = Number(process.env["BATON_QUEUE_LEASE_MARGIN_S"]);
  return Number.isFinite(value) && value >= 1 ? value : undefined;
}

export interface WorkerOptions {
  repo: string;
  queue?: string | undefined;
  runner?: string | undefined;
  script?: string | undefined;
  machine?: string | undefined;
  maxJobs?: string | undefined;
  sandbox?: string | undefined;
}

/** `baton worker --queue URL --repo DIR`: takes DELEGATE jobs until stopped. */
export async function worker(
  options: WorkerOptions,
  signal: AbortSignal,
  onEvent: (line: string) => void,
): Promise<WorkerReport> {
  if (options.queue === undefined) throw new UsageError("baton worker needs --queue postgres://…");
  const url = queueUrl(options.queue);
  const config = await loadConfig(options.repo);
  const settings = runnerConfig(config.runner, {
    repo: options.repo,
    number: "0",
    runner: options.runner,
    script: options.script ? resolve(options.script) : undefined,
  });
  const maxJobs = options.maxJobs === undefined ? undefined : Number(options.maxJobs);
  if (maxJobs !== undefined && !(Number.isInteger(maxJobs) && maxJobs >= 1)) {
    throw new UsageError(`--max-jobs must be a whole number from 1, got "${options.maxJobs}"`);
  }
  return runWorker({
    url,
    repo: config.root,
    runner: settings,
    sandbox: sandboxMode(options.sandbox) ?? config.sandbox,
    signal,
    machine: options.machine,
    maxJobs,
    queue: { maintenanceSeconds: maintenanceSeconds() },
    onEvent,
  });
}
