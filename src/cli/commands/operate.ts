import { loadConfig, SandboxMode } from "../../config/index.js";
import {
  type DryRunPlan,
  ISOLATE_MODES,
  type OperationReport,
  type ProgressEvent,
  planOperation,
  type RecoveryAction,
  recoverOpenRuns,
  runOperation,
} from "../../engine/index.js";
import { agentFileReaders } from "../../hosts/index.js";
import { createRunner, RunnerConfig } from "../../runners/index.js";
import { UsageError } from "../../shared/index.js";
import { RUNNER_TYPES } from "../../shared/runner-names.js";
import type { Operation } from "../../state/index.js";
import { requireStore, storeContext } from "../../state/index.js";
import { oneOf } from "./choice.js";
import { parseTaskNumber } from "./task.js";

export interface OperateOptions {
  repo: string;
  number: string;
  focus?: string[] | undefined;
  force?: boolean | undefined;
  agent?: string | undefined;
  language?: string | undefined;
  /** commander's `--no-commit` sets this to false. */
  commit?: boolean | undefined;
  runner?: string | undefined;
  script?: string | undefined;
  timeout?: string | undefined;
  dryRun?: boolean | undefined;
  concurrency?: string | undefined;
  maxIterations?: string | undefined;
  isolate?: string | undefined;
  maxCost?: string | undefined;
  sandbox?: string | undefined;
}

function usd(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === "" || !Number.isFinite(n) || n < 0) {
    throw new UsageError(`--max-cost must be an amount in US dollars (e.g. 0.50), got "${value}"`);
  }
  return n;
}

function positiveInteger(value: string | undefined, flag: string, max: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > max) {
    throw new UsageError(`${flag} must be a whole number from 1 to ${max}, got "${value}"`);
  }
  return n;
}

/** `--sandbox`: where the agent runs; `off` only on purpose (the evidence says so). */
export function sandboxMode(value: string | undefined): SandboxMode | undefined {
  return oneOf("--sandbox", SandboxMode.options, value);
}

export function runnerConfig(
  configured: { type: string; [key: string]: unknown },
  options: OperateOptions,
): RunnerConfig {
  if (options.script) return { type: "scripted", script: options.script };
  const type = options.runner ?? configured.type;
  if (!(RUNNER_TYPES as readonly string[]).includes(type)) {
    throw new UsageError(`unknown runner "${type}"`, { hint: `Use one of: ${RUNNER_TYPES.join(", ")}.` });
  }
  if (type !== configured.type) {
    // A runner whose settings are all optional runs with its defaults; the others have nothing to run without them.
    const defaults = RunnerConfig.safeParse({ type });
    if (defaults.success) return defaults.data;
    throw new UsageError(
      `--runner ${type} needs its settings in baton.config.json ("runner": {"type": "${type}", …})`,
      {
        hint: type === "scripted" ? "Or pass --script FILE." : "See docs/runners.md.",
      },
    );
  }
  return configured as RunnerConfig;
}

/** What a run and its dry run both start from: the configuration (with --timeout) and a validated runner. */
async function setUp(operation: Operation, options: OperateOptions) {
  const loaded = await loadConfig(options.repo);
  const taskNumber = parseTaskNumber(options.number);
  let config = loaded;
  if (options.timeout !== undefined) {
    const seconds = Number(options.timeout);
    if (!(seconds > 0))
      throw new UsageError(`--timeout must be a number of seconds, got "${options.timeout}"`);
    config = { ...loaded, timeoutsMs: { ...loaded.timeoutsMs, [operation]: Math.round(seconds * 1000) } };
  }
  config = { ...config, sandbox: sandboxMode(options.sandbox) ?? config.sandbox };
  const settings = runnerConfig(config.runner, options);
  const runner = createRunner(settings, { baseDir: config.root });
  return {
    config,
    taskNumber,
    runner,
    runnerShown: runner.describe(),
    focus: options.focus && options.focus.length > 0 ? options.focus.join(" ") : undefined,
  };
}

/** `baton research|plan|implement|revise N`: one operation through the checkpoints. */
export async function operate(
  operation: Operation,
  options: OperateOptions,
  onProgress?: (event: ProgressEvent) => void,
  signal?: AbortSignal,
): Promise<OperationReport> {
  const { config, taskNumber, runner, focus } = await setUp(operation, options);
  return runOperation({
    agentFiles: agentFileReaders(),
    config,
    operation,
    taskNumber,
    runner,
    focus,
    force: options.force,
    agentOverride: options.agent,
    languageOverride: options.language,
    onProgress,
    execution: {
      commit: options.commit,
      signal,
      concurrency: positiveInteger(options.concurrency, "--concurrency", 64),
      maxIterations: positiveInteger(options.maxIterations, "--max-iterations", 50),
      isolate: oneOf("--isolate", ISOLATE_MODES, options.isolate),
      maxCost: usd(options.maxCost),
    },
  });
}

/** `--dry-run`: what the run would decide, and the prompt it would send, without writing anything. */
export async function planOnly(operation: Operation, options: OperateOptions): Promise<DryRunPlan> {
  const { config, taskNumber, runnerShown, focus } = await setUp(operation, options);
  positiveInteger(options.concurrency, "--concurrency", 64);
  positiveInteger(options.maxIterations, "--max-iterations", 50);
  oneOf("--isolate", ISOLATE_MODES, options.isolate);
  return planOperation({
    agentFiles: agentFileReaders(),
    config,
    operation,
    taskNumber,
    runner: runnerShown,
    focus,
    force: options.force,
    agentOverride: options.agent,
    languageOverride: options.language,
  });
}

export async function recover(options: {
  repo: string;
  number?: string | undefined;
  force?: boolean | undefined;
}): Promise<RecoveryAction[]> {
  const config = await loadConfig(options.repo);
  requireStore(storeContext(config));
  return recoverOpenRuns(
    config,
    options.number === undefined ? undefined : parseTaskNumber(options.number),
    options.force ?? false,
  );
}
