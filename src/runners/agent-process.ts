import { constants as osConstants } from "node:os";
import { type ProcessResult, type RunProcessOptions, runProcess } from "../shared/process.js";
import type {
  RunFailureReason,
  RunnerEvent,
  RunnerKind,
  RunOptions,
  RunOutcome,
  RunUsage,
} from "./runner-types.js";
import { runSandboxed } from "./sandbox-run.js";
import { parseStepMarker, parseUsageMarker } from "./step-marker.js";

/**
 * How a runner reads its agent's stdout. The default treats lines as text (step markers aside); an agent
 * with structured output (Claude's stream-json) turns each line into events and, at the end, supplies
 * the output text and usage it assembled.
 */
export interface OutputInterpreter {
  line(line: string, emit: (event: RunnerEvent) => void): void;
  /**
   * Fields left out fall back to the stdout tail and the spec's usage. `failure`: the agent said its run
   * failed; it turns a clean exit (or a plain non-zero exit, whose own message says less) into a failed
   * outcome, but never replaces a timeout, abort or crash, which Baton observed itself.
   */
  result?(): { output?: string; usage?: RunUsage; failure?: AgentFailure };
}

export interface AgentFailure {
  reason: RunFailureReason;
  message: string;
}

/** Plain text, with step markers turned into steps and usage markers summed into usage events. */
export function plainTextOutput(): OutputInterpreter {
  let usage: RunUsage | undefined;
  return {
    line(line, emit) {
      const spent = parseUsageMarker(line);
      if (spent) {
        usage = addUsage(usage, spent);
        emit({ type: "usage", usage: { ...usage } });
      }
      const step = parseStepMarker(line);
      emit(step ? { type: "step", ...step } : { type: "output", stream: "stdout", line });
    },
    result: () => (usage ? { usage } : {}),
  };
}

/** The sum of two usages, field by field; a field neither has stays absent. */
export function addUsage(total: RunUsage | undefined, more: RunUsage | undefined): RunUsage | undefined {
  if (!more) return total;
  const result: RunUsage = {};
  for (const key of ["inputTokens", "outputTokens", "costUsd", "turns", "durationMs"] as const) {
    const a = total?.[key];
    const b = more[key];
    if (a === undefined && b === undefined) continue;
    result[key] = key === "costUsd" ? Math.round(((a ?? 0) + (b ?? 0)) * 1e6) / 1e6 : (a ?? 0) + (b ?? 0);
  }
  return result;
}

export interface AgentProcessSpec {
  command: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  stdin?: string;
  killGraceMs?: number;
  /** Usage the runner knows without parsing output (a script declares it). */
  usage?: RunUsage;
  interpreter?: OutputInterpreter;
}

/** Runs an agent process through the process helper, reporting events and mapping the result to an outcome. */
export async function runAgentProcess(
  kind: RunnerKind,
  spec: AgentProcessSpec,
  options: RunOptions,
): Promise<RunOutcome> {
  const { onEvent } = options;
  const interpreter = spec.interpreter ?? plainTextOutput();
  const launch: RunProcessOptions = {
    command: spec.command,
    args: spec.args,
    cwd: spec.cwd,
    env: spec.env,
    timeoutMs: options.timeoutMs,
    signal: options.signal,
    ...(spec.stdin !== undefined ? { stdin: spec.stdin } : {}),
    ...(spec.killGraceMs !== undefined ? { killGraceMs: spec.killGraceMs } : {}),
    onSpawn: (pid) => onEvent({ type: "started", runner: kind, pid }),
    onStdoutLine: (line) => interpreter.line(line, onEvent),
    onStderrLine: (line) => onEvent({ type: "output", stream: "stderr", line }),
  };
  // Every runner's agent goes through here: the sandbox, when the run has one, wraps each of them alike.
  const result = options.sandbox ? await runSandboxed(options.sandbox, launch) : await runProcess(launch);
  const interpreted = interpreter.result?.() ?? {};
  let outcome = toOutcome(options.sandbox ? unwrapSignal(result) : result, interpreted.usage ?? spec.usage);
  if (interpreted.output !== undefined) outcome.output = interpreted.output;
  const { failure } = interpreted;
  if (failure && (outcome.ok || outcome.reason === "exit")) {
    const { ok: _ok, ...record } = outcome;
    outcome = { ...record, ok: false, reason: failure.reason, message: failure.message };
  }
  return finish(outcome, options);
}

/** An outcome for a run that failed before any process started. */
export function failBeforeStart(
  reason: "invalid_request" | "spawn_failed",
  message: string,
  options: RunOptions,
): RunOutcome {
  return failWithoutOutput(reason, message, 0, options);
}

/** A failed run with no output of an agent process of its own (none started, or the work ran elsewhere). */
export function failWithoutOutput(
  reason: Extract<RunOutcome, { ok: false }>["reason"],
  message: string,
  durationMs: number,
  options: RunOptions,
): RunOutcome {
  const outcome: RunOutcome = {
    ok: false,
    reason,
    message,
    output: "",
    stderr: "",
    exitCode: null,
    signal: null,
    durationMs,
    pid: null,
  };
  return finish(outcome, options);
}

/** Reports how a run ended (the `finished` event every runner sends last) and returns the outcome. */
export function finish(outcome: RunOutcome, options: RunOptions): RunOutcome {
  options.onEvent({
    type: "finished",
    ok: outcome.ok,
    ...(outcome.ok ? {} : { reason: outcome.reason }),
    exitCode: outcome.exitCode,
    durationMs: outcome.durationMs,
    ...(outcome.usage ? { usage: outcome.usage } : {}),
  });
  return outcome;
}

const REASONS: Record<Exclude<ProcessResult, { ok: true }>["reason"], RunFailureReason> = {
  exit: "exit",
  signal: "crashed",
  timeout: "timeout",
  aborted: "aborted",
  spawn_failed: "spawn_failed",
};

function toOutcome(result: ProcessResult, usage: RunUsage | undefined): RunOutcome {
  const record = {
    output: result.stdout,
    stderr: result.stderr,
    exitCode: result.exitCode,
    signal: result.signal,
    durationMs: result.durationMs,
    pid: result.pid,
    ...(usage ? { usage } : {}),
  };
  if (result.ok) return { ok: true, ...record };
  // An exit code alone says nothing: what the process (or the sandbox around it) last said on stderr goes with it.
  const said = result.reason === "exit" ? lastLine(result.stderr) : undefined;
  const message = said ? `${result.message}: ${said.slice(0, 300)}` : result.message;
  return { ok: false, reason: REASONS[result.reason], message, ...record };
}

function lastLine(text: string): string | undefined {
  return text
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean)
    .at(-1);
}

/**
 * The sandbox exits with 128 + N when the agent died of signal N: read back as the signal, so a crashed
 * agent is a crash (RUNNER_CRASHED) sandboxed or not.
 */
function unwrapSignal(result: ProcessResult): ProcessResult {
  if (result.ok || result.reason !== "exit" || result.exitCode === null) return result;
  const number = result.exitCode - 128;
  const name = Object.entries(osConstants.signals).find(([, n]) => n === number)?.[0] as
    | NodeJS.Signals
    | undefined;
  if (number <= 0 || !name) return result;
  return { ...result, reason: "signal", signal: name, exitCode: null, message: `killed by ${name}` };
}
