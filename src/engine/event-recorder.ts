import type { RunnerEvent, RunUsage } from "../runners/index.js";
import { appendEvent, type NewEvent } from "../shared/event-stream.js";
import type { RunMode } from "../shared/run-words.js";
import type { PlanProgressEvent } from "./plan-run/index.js";
import type { ProgressEvent } from "./progress-event.js";
import type { Run } from "./run/index.js";

/** Who an operation's events belong to, fixed once per run. */
interface RecordedRun {
  root: string;
  session: string;
  task: number;
  operation: string;
  agent: string;
  mode: RunMode;
  runner?: string | undefined;
}

function usageFields(usage: RunUsage | undefined): Partial<NewEvent> {
  if (!usage) return {};
  return {
    ...(usage.inputTokens === undefined ? {} : { tokensIn: usage.inputTokens }),
    ...(usage.outputTokens === undefined ? {} : { tokensOut: usage.outputTokens }),
    ...(usage.costUsd === undefined ? {} : { costUsd: usage.costUsd }),
  };
}

/** A prepared run, as its events name it. */
function recordedRun(run: Run, runner?: string): RecordedRun {
  return {
    root: run.config.root,
    session: run.sessionId,
    task: run.taskNumber,
    operation: run.operation,
    agent: run.route.agent.name,
    mode: run.mode,
    ...(runner ? { runner } : {}),
  };
}

/**
 * A run's one sink of events: each is written to the repository's event stream (who it belongs to fixed once,
 * when the run was prepared), then handed on (a terminal's progress). Every run mode drives its events
 * through it; the run's end arrives as an event from the executor, so no mode can leave it unwritten.
 */
export function recordRunEvents(
  run: Run,
  options: { runner?: string | undefined; onward?: ((event: ProgressEvent) => void) | undefined } = {},
): (event: ProgressEvent) => void {
  const recorded = recordedRun(run, options.runner);
  const base = { session: recorded.session, task: recorded.task, operation: recorded.operation };
  return (event) => {
    const written = streamEvent(recorded, event);
    if (written) appendEvent(recorded.root, { ...base, ...written });
    options.onward?.(event);
  };
}

/**
 * A progress event as the repository's event stream keeps it, if it keeps it: the operation's start and end,
 * gate verdicts, each agent run with its usage (the one place spend is counted), phases and waves, a budget's
 * verdict, the commit.
 */
function streamEvent(run: RecordedRun, event: ProgressEvent): NewEvent | undefined {
  switch (event.type) {
    case "checkpoint":
      return event.phase === "end" ? checkpointEvent(run, event) : undefined;
    case "runner":
      return agentEvent(event.event, { agent: run.agent });
    case "plan":
      return planEvent(event.event);
    case "budget":
      return { kind: "budget", outcome: event.outcome, code: "BUDGET_EXCEEDED", message: event.message };
    case "finished":
      return endEvent(run, event);
  }
}

function checkpointEvent(
  run: RecordedRun,
  event: Extract<ProgressEvent, { type: "checkpoint" }>,
): NewEvent | undefined {
  if (event.step === "GATE_IN" && event.ok)
    return {
      kind: "operation",
      outcome: "started",
      agent: run.agent,
      mode: run.mode,
      // A session's gate-in exits at once: its checkpoint's liveness is the host's, not this pid.
      ...(run.mode === "headless" ? { pid: process.pid } : {}),
      ...(run.runner ? { runner: run.runner } : {}),
    };
  if (event.step === "GATE_IN" || event.step === "GATE_OUT")
    return {
      kind: "gate",
      code: event.step,
      outcome: event.ok ? "passed" : "refused",
      ...(event.code ? { message: `[${event.code}] ${(event.message ?? "").slice(0, 280)}` } : {}),
    };
  if (event.step === "COMMIT") return { kind: "commit", outcome: event.ok ? "committed" : "failed" };
  return undefined;
}

function agentEvent(event: RunnerEvent, extra: Partial<NewEvent>): NewEvent | undefined {
  if (event.type !== "finished") return undefined;
  return {
    kind: "agent",
    ...extra,
    outcome: event.ok ? "done" : (event.reason ?? "failed"),
    durationMs: event.durationMs,
    ...usageFields(event.usage),
  };
}

function planEvent(event: PlanProgressEvent): NewEvent | undefined {
  switch (event.type) {
    case "wave":
      return { kind: "wave", wave: event.wave + 1, outcome: event.event, message: event.phases.join(",") };
    case "phase_started":
      return {
        kind: "phase",
        phase: event.id,
        wave: event.wave + 1,
        iteration: event.iteration,
        agent: event.agent,
        outcome: "started",
      };
    case "phase_runner":
      return agentEvent(event.event, { phase: event.id });
    case "phase_recorded": {
      const verdict = event.record.verdict;
      return {
        kind: "phase",
        phase: event.id,
        wave: event.wave + 1,
        outcome: verdict.kind,
        ...("code" in verdict ? { code: verdict.code } : {}),
        ...("message" in verdict ? { message: verdict.message.slice(0, 300) } : {}),
      };
    }
  }
  return undefined;
}

/** The operation's last event: how it ended, with its totals. */
function endEvent(run: RecordedRun, end: Extract<ProgressEvent, { type: "finished" }>): NewEvent {
  const { result, usage, durationMs } = end;
  return {
    kind: "operation",
    agent: run.agent,
    mode: run.mode,
    durationMs,
    ...(result.ok
      ? { outcome: result.outcome }
      : {
          outcome: result.checkpoint === "GATE_IN" ? "refused" : "failed",
          code: result.code,
          message: result.message.slice(0, 300),
        }),
    // Totals for reading; spend is summed from the agent events only.
    ...usageFields(usage),
  };
}
