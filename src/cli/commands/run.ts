import { resolve } from "node:path";
import { type BatchProgress, type BatchReport, runBatch } from "../../batch/index.js";
import { loadConfig } from "../../config/index.js";
import { parseTaskRanges, type RunTarget } from "../../engine/index.js";
import { UsageError } from "../../shared/index.js";

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

/** `baton run`: options checked, then the batch (see src/batch). */
export async function runMany(
  options: RunManyOptions,
  signal: AbortSignal,
  onProgress?: (event: BatchProgress) => void,
): Promise<BatchReport> {
  let tasks: number[] | undefined;
  try {
    tasks = options.tasks === undefined ? undefined : parseTaskRanges(options.tasks);
  } catch (error) {
    throw new UsageError(`--tasks: ${(error as Error).message}`);
  }
  if (!tasks && !options.status && !options.language && !options.allReady) {
    throw new UsageError("name the tasks to run", {
      hint: "Use --tasks 12,14-16, --status researched, --language lean or --all-ready.",
    });
  }
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
  const config = await loadConfig(options.repo);
  const operationArgs = [
    ...(options.runner ? ["--runner", options.runner] : []),
    // Runs start in the repository root: a path given here is made absolute first.
    ...(options.script ? ["--script", resolve(options.script)] : []),
    ...(options.timeout ? ["--timeout", options.timeout] : []),
  ];
  return runBatch({
    config,
    selection: {
      tasks,
      statuses: list(options.status),
      languages: list(options.language),
      allReady: options.allReady,
    },
    until,
    concurrency,
    maxCost,
    operationArgs,
    signal,
    onProgress,
  });
}
