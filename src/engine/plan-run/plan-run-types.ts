import type { PhaseId } from "../../plan/index.js";
import type { DelegationContext, Runner, RunnerEvent, RunUsage } from "../../runners/index.js";
import type { AcceptedOutcome } from "../../shared/run-words.js";
import type { VerifiedArtifact } from "../gate-out/index.js";
import type { BudgetGuard, IsolateMode, PreparedPlan, Run, SessionJournal } from "../run/index.js";

/** How one call of a phase agent ended, once the hard barrier has looked at it. */
export type PhaseOutcome =
  | { kind: "complete" }
  /** The agent verified its partial work and says what is left: the phase is called again. */
  | { kind: "remaining"; remaining: string }
  | { kind: "blocked"; code: string; message: string }
  | { kind: "failed"; code: string; message: string }
  /** Refused for a reason the agent can fix (a failing check): called again with it, while iterations last. */
  | { kind: "retry"; code: string; message: string };

/** An iteration of a phase the barrier refused and called again: part of the phase's story. */
export interface IterationRefusal {
  iteration: number;
  code: string;
  message: string;
}

/** Why a phase ended partial: its remaining work stopped changing, its calls ran out, or the run was stopped. */
export type PartialReason = "stuck" | "max_iterations" | "stopped";

/** What is recorded for a phase that ran, or that could not run; `earlier`: its refused iterations, in order. */
export type PhaseVerdict =
  | { kind: "complete"; iterations: number; earlier?: IterationRefusal[] }
  | {
      kind: "partial";
      reason: PartialReason;
      message: string;
      iterations: number;
      earlier?: IterationRefusal[];
    }
  | { kind: "blocked"; code: string; message: string; iterations: number; earlier?: IterationRefusal[] }
  | { kind: "failed"; code: string; message: string; iterations: number; earlier?: IterationRefusal[] }
  | { kind: "dependency_blocked"; dependency: PhaseId; message: string };

export type PhaseState =
  | { status: "pending" }
  | {
      status: "running";
      iteration: number;
      remaining: string | null;
      unchanged: number;
      /** The iterations the barrier refused so far. */
      refusals?: IterationRefusal[];
    }
  /** Ran (or could not run); its record effect is not emitted yet. */
  | { status: "finished"; verdict: PhaseVerdict }
  | { status: "recording"; verdict: PhaseVerdict }
  | { status: "recorded"; verdict: PhaseVerdict }
  /** Complete (or otherwise settled) before this run: never run again. */
  | { status: "settled" };

export interface PhaseSpec {
  id: PhaseId;
  name: string;
  dependencies: PhaseId[];
  settled: boolean;
}

export interface PlanRunState {
  order: PhaseId[];
  specs: Record<PhaseId, PhaseSpec>;
  phases: Record<PhaseId, PhaseState>;
  waves: PhaseId[][];
  /** Index of the wave in progress; `waves.length` once finished. */
  wave: number;
  concurrency: number;
  maxIterations: number;
  /** Record finished phases in plan order within a wave (worktrees are merged back in phase order). */
  orderedRecords: boolean;
  stopping: boolean;
  finished: boolean;
}

export type PlanRunEvent =
  | { type: "start" }
  | { type: "phase_ran"; id: PhaseId; outcome: PhaseOutcome }
  | { type: "phase_recorded"; id: PhaseId; verdict?: PhaseVerdict }
  /** Abort: no new phase or iteration starts; running ones end through their own outcome. */
  | { type: "stop"; message: string };

export type PlanRunOutcome = AcceptedOutcome | "failed";

export type PlanEffect =
  | { type: "wave_started"; wave: number; phases: PhaseId[] }
  | { type: "run_phase"; id: PhaseId; iteration: number; continuation: string | null }
  | { type: "record_phase"; id: PhaseId; verdict: PhaseVerdict }
  | { type: "wave_finished"; wave: number }
  | { type: "plan_finished"; outcome: PlanRunOutcome };

export type PlanProgressEvent =
  /** `stopped`: the run was stopped (Ctrl-C, a budget) before the wave's phases all ran. */
  | {
      type: "wave";
      wave: number;
      total: number;
      phases: PhaseId[];
      event: "started" | "finished" | "stopped";
    }
  | { type: "phase_started"; id: PhaseId; name: string; wave: number; iteration: number; agent: string }
  | { type: "phase_recorded"; id: PhaseId; name: string; wave: number; record: PhaseRecord }
  | { type: "phase_runner"; id: PhaseId; event: RunnerEvent };

/** A plan run: the one prepared Run (its plan checked whole and routed per phase), and how DELEGATE runs. */
export interface PlanRunInput {
  run: Run & { plan: PreparedPlan };
  /** The delegation context of the whole implement run; each phase call adds its own fields. */
  baseContext: DelegationContext;
  runner: Runner;
  journal: SessionJournal;
  concurrency: number;
  maxIterations: number;
  isolate: IsolateMode;
  commit: boolean;
  signal: AbortSignal;
  /** Checked before each agent run and on its streamed cost; a stop ends the run resumable. */
  budget?: BudgetGuard | undefined;
  emit: (event: PlanProgressEvent) => void;
}

export interface PhaseReport {
  id: PhaseId;
  name: string;
  wave: number;
  agent: string | null;
  routeReason: string | null;
  /** `settled`: complete (or skipped) before this run; `not_run`: the run stopped before it. */
  state: "settled" | "not_run" | "recorded";
  record?: PhaseRecord;
}

export interface PlanRunReport {
  outcome: PlanRunOutcome;
  waves: PhaseId[][];
  phases: PhaseReport[];
  /** Summaries of the phases completed in this run, as artifacts to link. */
  summaries: VerifiedArtifact[];
  completionSummaries: string[];
  usage: RunUsage | undefined;
  /** Phases of the plan file as it stands after the run that no verified barrier completed (outcome partial). */
  unfinished?: string[];
}

/** How a phase's verdict was recorded: its marker, its commit (or why git refused it), a kept branch. */
export interface PhaseRecord {
  verdict: PhaseVerdict;
  marker: string;
  commit: { sha: string } | { error: string } | null;
  /** Where work that could not be merged back is kept. */
  keptBranch?: string;
}
