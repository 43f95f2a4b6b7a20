import type { BatonConfig } from "../config/index.js";
import type { BatonEvent } from "../shared/event-stream.js";
import type { Operation } from "../state/index.js";
import type { RunTarget, Waiting } from "./schedule.js";

/** Which tasks a batch takes: the union of what each option names, among active tasks. */
export interface Selection {
  tasks?: number[] | undefined;
  statuses?: string[] | undefined;
  languages?: string[] | undefined;
  allReady?: boolean | undefined;
}

export interface BatchRequest {
  config: BatonConfig;
  selection: Selection;
  until: RunTarget;
  concurrency: number;
  /** USD for the whole batch; each run gets a share, so the runs together never pass it. */
  maxCost?: number | undefined;
  /** Passed to every operation: `--runner …`, `--script …`, `--timeout …`. */
  operationArgs: string[];
  signal: AbortSignal;
  onProgress?: ((event: BatchProgress) => void) | undefined;
}

export type BatchProgress =
  | { type: "started"; task: number; operation: Operation; pid: number | null }
  | { type: "event"; event: BatonEvent }
  | { type: "finished"; run: BatchRun };

export interface BatchRun {
  task: number;
  operation: Operation;
  ok: boolean;
  session?: string;
  status?: string;
  code?: string;
  message?: string;
  costUsd?: number;
  durationMs: number;
}

export interface BatchReport {
  selected: number[];
  runs: BatchRun[];
  /** Selected tasks with nothing left to do within `--until`. */
  finished: number[];
  /** Selected tasks that could not go on, and why (a dependency not completed, a failed run). */
  waiting: Waiting[];
  stopped: "done" | "signal" | "budget";
  spentUsd: number;
}

/** Runs one operation on one task and says how it ended: a local process, or a job on the queue. */
export type RunOne = (task: number, operation: Operation, cap: number | undefined) => Promise<BatchRun>;
