import type { AcceptedOutcome, StepBoundary } from "../shared/run-words.js";
import type { Operation } from "../state/index.js";
import type { GateInRefusalCode } from "./gate-in/index.js";
import type { GateOutVerdict } from "./gate-out/index.js";
import type { Checkpoint } from "./run/index.js";

/**
 * The checkpoint sequence as a pure state machine: `transition(state, event)` returns the next state
 * and the effects to perform; the executor performs them and feeds back what happened. Every step is
 * bracketed by journal effects, so a crash between any two effects is recoverable from the journal.
 */
export type RunPhase = "gate_in" | "delegate" | "gate_out" | "record" | "commit" | "finished";

/** How the agent process ended, as the engine sees it (the runner's own outcome, reduced). */
export type DelegationOutcome =
  | { ok: true; output: string }
  | {
      ok: false;
      reason: "exit" | "timeout" | "aborted" | "crashed" | "spawn_failed" | "agent_error" | "budget";
      message: string;
      output: string;
    };

export type FailureCode =
  | "GATE_IN_REFUSED"
  | GateInRefusalCode
  | "RUNNER_EXIT"
  | "RUNNER_TIMEOUT"
  | "RUNNER_ABORTED"
  | "RUNNER_CRASHED"
  | "RUNNER_SPAWN_FAILED"
  | "RUNNER_AGENT_ERROR"
  | "BUDGET_EXCEEDED"
  | "COMMIT_FAILED"
  | Extract<GateOutVerdict, { ok: false }>["code"];

export type RunResult =
  | {
      ok: true;
      outcome: AcceptedOutcome;
      committed: boolean;
      commitError?: string;
      /** Work files that changed after GATE OUT saw them: committed as seen, their later bytes left in the tree. */
      leftOut?: string[];
    }
  | { ok: false; checkpoint: Checkpoint; code: FailureCode; message: string };

export interface RunState {
  phase: RunPhase;
  operation: Operation;
  taskNumber: number;
  sessionId: string;
  /** Set once GATE OUT accepted the result. */
  outcome?: AcceptedOutcome;
  result?: RunResult;
}

export type RunEvent =
  | { type: "start" }
  | { type: "gate_in_passed" }
  | { type: "gate_in_refused"; message: string; code?: GateInRefusalCode | undefined }
  | { type: "agent_finished"; outcome: DelegationOutcome }
  | { type: "gate_out_checked"; verdict: GateOutVerdict }
  | { type: "recorded" }
  /** `failed` only when git refused; a disabled commit or nothing to commit is not a failure. */
  | { type: "commit_finished"; committed: boolean; error?: string; failed?: boolean; leftOut?: string[] };

export type Effect =
  | {
      type: "journal";
      step: Checkpoint;
      phase: StepBoundary;
      ok?: boolean;
      detail?: Record<string, unknown>;
    }
  | { type: "gate_in" }
  | { type: "run_agent" }
  | { type: "check_result"; output: string }
  | { type: "record_result"; verdict: Extract<GateOutVerdict, { ok: true }> }
  | { type: "record_failure"; checkpoint: Checkpoint; code: FailureCode; message: string }
  | { type: "commit"; outcome: AcceptedOutcome };

const RUNNER_CODES: Record<Extract<DelegationOutcome, { ok: false }>["reason"], FailureCode> = {
  exit: "RUNNER_EXIT",
  timeout: "RUNNER_TIMEOUT",
  aborted: "RUNNER_ABORTED",
  crashed: "RUNNER_CRASHED",
  spawn_failed: "RUNNER_SPAWN_FAILED",
  agent_error: "RUNNER_AGENT_ERROR",
  budget: "BUDGET_EXCEEDED",
};

export function initialState(operation: Operation, taskNumber: number, sessionId: string): RunState {
  return { phase: "gate_in", operation, taskNumber, sessionId };
}

function fail(
  state: RunState,
  checkpoint: Checkpoint,
  code: FailureCode,
  message: string,
): [RunState, Effect[]] {
  return [
    { ...state, phase: "finished", result: { ok: false, checkpoint, code, message } },
    [
      { type: "journal", step: checkpoint, phase: "end", ok: false, detail: { code, message } },
      ...(checkpoint === "GATE_IN" ? [] : [{ type: "record_failure" as const, checkpoint, code, message }]),
    ],
  ];
}

function agentFinished(state: RunState, outcome: DelegationOutcome): [RunState, Effect[]] {
  if (!outcome.ok) return fail(state, "DELEGATE", RUNNER_CODES[outcome.reason], outcome.message);
  return [
    { ...state, phase: "gate_out" },
    [
      { type: "journal", step: "DELEGATE", phase: "end", ok: true },
      { type: "journal", step: "GATE_OUT", phase: "begin" },
      { type: "check_result", output: outcome.output },
    ],
  ];
}

function gateOutChecked(state: RunState, verdict: GateOutVerdict): [RunState, Effect[]] {
  if (!verdict.ok) return fail(state, "GATE_OUT", verdict.code, verdict.message);
  return [
    { ...state, phase: "record", outcome: verdict.outcome },
    [
      { type: "record_result", verdict },
      { type: "journal", step: "GATE_OUT", phase: "end", ok: true, detail: { outcome: verdict.outcome } },
    ],
  ];
}

function commitFinished(
  state: RunState,
  event: Extract<RunEvent, { type: "commit_finished" }>,
): [RunState, Effect[]] {
  // The result is recorded but git refused it: the run has not succeeded. Its checkpoint stays open as
  // "recorded, commit pending", so `baton recover` (or the next run of the task) commits it.
  if (event.failed) {
    const message = event.error ?? "git commit failed";
    return [
      {
        ...state,
        phase: "finished",
        result: { ok: false, checkpoint: "COMMIT", code: "COMMIT_FAILED", message },
      },
      [{ type: "journal", step: "COMMIT", phase: "end", ok: false, detail: { error: message } }],
    ];
  }
  const result: RunResult = { ok: true, outcome: state.outcome ?? "done", committed: event.committed };
  if (event.error !== undefined) result.commitError = event.error;
  if (event.leftOut && event.leftOut.length > 0) result.leftOut = event.leftOut;
  const detail = {
    ...(event.error ? { error: event.error } : {}),
    ...(result.leftOut ? { leftOut: result.leftOut } : {}),
  };
  return [
    { ...state, phase: "finished", result },
    [{ type: "journal", step: "COMMIT", phase: "end", ok: true, detail }],
  ];
}

export function transition(state: RunState, event: RunEvent): [RunState, Effect[]] {
  switch (event.type) {
    case "start":
      return [state, [{ type: "journal", step: "GATE_IN", phase: "begin" }, { type: "gate_in" }]];
    case "gate_in_refused":
      return fail(state, "GATE_IN", event.code ?? "GATE_IN_REFUSED", event.message);
    case "gate_in_passed":
      return [
        { ...state, phase: "delegate" },
        [
          { type: "journal", step: "GATE_IN", phase: "end", ok: true },
          { type: "journal", step: "DELEGATE", phase: "begin" },
          { type: "run_agent" },
        ],
      ];
    case "agent_finished":
      return agentFinished(state, event.outcome);
    case "gate_out_checked":
      return gateOutChecked(state, event.verdict);
    case "recorded":
      return [
        { ...state, phase: "commit" },
        [
          { type: "journal", step: "COMMIT", phase: "begin" },
          { type: "commit", outcome: state.outcome ?? "done" },
        ],
      ];
    case "commit_finished":
      return commitFinished(state, event);
  }
}
