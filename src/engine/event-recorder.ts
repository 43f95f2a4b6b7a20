import type { RunnerEvent, RunUsage } from "../runners/index.js";
import { appendEvent, type NewEvent } from "../shared/event-stream.js";
import type { PlanProgressEvent } from "./plan-run/index.js";
import type { ProgressEvent } from "./progress-event.js";
import type { Run } from "./run/index.js";
import type { RunResult } from "./transition.js";

/** Who an operation's events belong to, fixed once per run. */
interface RecordedRun {
  root: string;
  session: string;
  task: number;
  operation: string;
  agent: string;
  mode: "headless" | "session";
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
 * One operation's events, written to the repository's event stream: who they belong to is fixed once, when the
 * run is prepared; progress, a budget's verdict and the end go through it.
 */
export class OperationRecorder {
  private readonly run: RecordedRun;
  /** Progress events as they come, turned into the stream's events (progressRecorder). */
  readonly progress: (event: ProgressEvent) => void;

  constructor(run: Run, runner?: string) {
    this.run = recordedRun(run, runner);
    this.progress = progressRecorder(this.run);
  }

  /** A budget that refused the run before GATE IN, or stopped it: one event, with the limit's message. */
  budget(outcome: "refused" | "exceeded", message: string): void {
    appendEvent(this.run.root, {
      ...eventBase(this.run),
      kind: "budget",
      outcome,
      code: "BUDGET_EXCEEDED",
      message,
    });
  }

  finish(result: RunResult, usage: RunUsage | undefined, durationMs: number): void {
    finishOperation(this.run, result, usage, durationMs);
  }
}

/** The fields every event of one run carries. */
function eventBase(run: RecordedRun): Pick<NewEvent, "session" | "task" | "operation"> {
  return { session: run.session, task: run.task, operation: run.operation };
}

/**
 * Turns an operation's progress events into the repository's event stream: operation start, gate
 * verdicts, each agent run with its usage (the one place spend is counted), phases and waves, the
 * commit. The operation's end is written by `finishOperation`, with the result's code.
 */
function progressRecorder(run: RecordedRun): (event: ProgressEvent) => void {
  const base = eventBase(run);
  const write = (event: NewEvent) => appendEvent(run.root, { ...base, ...event });
  return (event) => {
    if (event.type === "checkpoint" && event.phase === "end") {
      if (event.step === "GATE_IN" && event.ok)
        write({
          kind: "operation",
          outcome: "started",
          agent: run.agent,
          mode: run.mode,
          // A session's gate-in exits at once: its checkpoint's liveness is the host's, not this pid.
          ...(run.mode === "headless" ? { pid: process.pid } : {}),
          ...(run.runner ? { runner: run.runner } : {}),
        });
      else if (event.step === "GATE_IN" || event.step === "GATE_OUT")
        write({
          kind: "gate",
          code: event.step,
          outcome: event.ok ? "passed" : "refused",
          ...(event.code ? { message: `[${event.code}] ${(event.message ?? "").slice(0, 280)}` } : {}),
        });
      else if (event.step === "COMMIT") write({ kind: "commit", outcome: event.ok ? "committed" : "failed" });
    } else if (event.type === "runner") {
      recordAgentRun(write, event.event, { agent: run.agent });
    } else if (event.type === "plan") {
      recordPlanEvent(write, event.event);
    }
  };
}

function recordAgentRun(
  write: (event: NewEvent) => void,
  event: RunnerEvent,
  extra: Partial<NewEvent>,
): void {
  if (event.type !== "finished") return;
  write({
    kind: "agent",
    ...extra,
    outcome: event.ok ? "done" : (event.reason ?? "failed"),
    durationMs: event.durationMs,
    ...usageFields(event.usage),
  });
}

function recordPlanEvent(write: (event: NewEvent) => void, event: PlanProgressEvent): void {
  switch (event.type) {
    case "wave":
      write({ kind: "wave", wave: event.wave + 1, outcome: event.event, message: event.phases.join(",") });
      return;
    case "phase_started":
      write({
        kind: "phase",
        phase: event.id,
        wave: event.wave + 1,
        iteration: event.iteration,
        agent: event.agent,
        outcome: "started",
      });
      return;
    case "phase_runner":
      recordAgentRun(write, event.event, { phase: event.id });
      return;
    case "phase_recorded": {
      const verdict = event.record.verdict;
      write({
        kind: "phase",
        phase: event.id,
        wave: event.wave + 1,
        outcome: verdict.kind,
        ...("code" in verdict ? { code: verdict.code } : {}),
        ...("message" in verdict ? { message: verdict.message.slice(0, 300) } : {}),
      });
    }
  }
}

/** The operation's last event: how it ended, with its totals. */
function finishOperation(
  run: RecordedRun,
  result: RunResult,
  usage: RunUsage | undefined,
  durationMs: number,
): void {
  appendEvent(run.root, {
    kind: "operation",
    session: run.session,
    task: run.task,
    operation: run.operation,
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
  });
}
