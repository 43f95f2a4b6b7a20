// side doors: `baton status` must start fast and never writes the store; the state barrel would bring its writers.
import type { BatonEvent } from "../shared/event-stream.js";
import type { RunMode } from "../shared/run-words.js";
import { elapsedSince } from "../shared/time.js";
import {
  isCheckpointProcessAlive,
  type OpenCheckpoint,
  openCheckpointNumbers,
  readOpenCheckpoint,
} from "../state/open-checkpoint.js";
import { specsPaths } from "../state/paths.js";
import { type EventIndex, readEventIndex, type Spend } from "./event-index.js";

/**
 * One answer to "what is running, what is stuck, what was refused, what did it cost": the open
 * checkpoints (the truth about what runs) joined with the event stream (what each is doing, what it
 * spent, what ended and what was refused). Reads no task file, so it stays fast on any store size.
 */
export interface RunningOperation {
  task: number;
  operation: string;
  session: string;
  /** `queue`: delegated through `baton run --queue`; `machine` is the worker that holds it. */
  mode: RunMode | "queue";
  machine?: string;
  agent: string | null;
  pid: number;
  host: string;
  startedAt: string;
  elapsedMs: number;
  /** false: its process is gone; "unknown": another machine's, or a live session's (no pid tells). */
  alive: boolean | "unknown";
  /** The latest thing the stream says it did: a phase, a wave, an agent run. */
  doing: string | null;
  phase: string | null;
  wave: number | null;
  spentUsd: number;
  /** For a dead run, the exact command that resolves it; for a session, the gate that closes it. */
  next: string | null;
}

export interface CostRow extends Spend {
  key: string;
}

export interface StatusView {
  at: string;
  running: RunningOperation[];
  results: BatonEvent[];
  refusals: BatonEvent[];
  costs: {
    total: Spend;
    today: Spend;
    byTask: CostRow[];
    byOperation: CostRow[];
    byDay: CostRow[];
  };
}

const zero = (): Spend => ({ costUsd: 0, tokensIn: 0, tokensOut: 0, runs: 0 });

function rows(record: Record<string, Spend>): CostRow[] {
  return Object.entries(record).map(([key, spend]) => ({ key, ...spend }));
}

function doingOf(last: BatonEvent | undefined): string | null {
  if (!last) return null;
  if (last.kind === "phase")
    return `phase ${last.phase} ${last.outcome}${last.iteration && last.iteration > 1 ? ` (iteration ${last.iteration})` : ""}`;
  if (last.kind === "wave") return `wave ${last.wave} ${last.outcome}`;
  if (last.kind === "agent") return `agent ${last.outcome}${last.phase ? ` (phase ${last.phase})` : ""}`;
  if (last.kind === "operation") return "agent at work";
  if (last.kind === "gate") return `${last.code} ${last.outcome}`;
  if (last.kind === "queue")
    return last.outcome === "enqueued"
      ? "queued, waiting for a worker"
      : `${last.outcome}${last.machine ? ` on ${last.machine}` : ""}`;
  return last.outcome ?? null;
}

/** `fixedNow`: the wall-clock time to measure from (tests); else the monotonic clock where the run recorded it. */
function running(
  checkpoint: OpenCheckpoint,
  index: EventIndex,
  fixedNow: number | undefined,
  bin: string,
): RunningOperation {
  const entry = index.sessions[checkpoint.sessionId];
  const mode = checkpoint.mode ?? "headless";
  const alive = isCheckpointProcessAlive(checkpoint);
  const last = entry?.last;
  const phaseEvent = last && (last.kind === "phase" || last.kind === "agent") ? last : undefined;
  const queued = entry?.runner === "queue";
  const next = queued
    ? null
    : mode === "session"
      ? `${bin} gate-out ${checkpoint.operation} ${checkpoint.taskNumber} --session ${checkpoint.sessionId}`
      : alive === false
        ? `${bin} recover ${checkpoint.taskNumber}`
        : null;
  return {
    task: checkpoint.taskNumber,
    operation: checkpoint.operation,
    session: checkpoint.sessionId,
    mode: queued ? "queue" : mode,
    ...(entry?.machine ? { machine: entry.machine } : {}),
    agent: checkpoint.agent ?? last?.agent ?? null,
    pid: checkpoint.recorded?.pid ?? checkpoint.pid,
    host: checkpoint.hostname,
    startedAt: checkpoint.startedAt,
    elapsedMs: elapsedSince(checkpoint, fixedNow === undefined ? {} : { wallMs: fixedNow, bootId: null }),
    alive,
    doing: checkpoint.recorded ? "committing its recorded result" : doingOf(last),
    phase: phaseEvent?.phase ?? null,
    wave: last?.wave ?? null,
    spentUsd: entry?.spend.costUsd ?? 0,
    next,
  };
}

/** The first `k` rows in the order a stable sort by `compare` gives, without sorting them all. */
function topRows(
  record: Record<string, Spend>,
  k: number,
  compare: (a: CostRow, b: CostRow) => number,
): CostRow[] {
  const top: CostRow[] = [];
  for (const [key, spend] of Object.entries(record)) {
    const row = { key, ...spend };
    if (top.length === k && compare(row, top[k - 1]!) >= 0) continue;
    let at = top.length;
    while (at > 0 && compare(row, top[at - 1]!) < 0) at--;
    top.splice(at, 0, row);
    if (top.length > k) top.pop();
  }
  return top;
}

export function readStatus(
  root: string,
  specsDir: string,
  options: { bin?: string; recent?: number; now?: number; topTasks?: number } = {},
): StatusView {
  const now = options.now ?? Date.now();
  const recent = options.recent ?? 10;
  const internalDir = specsPaths(specsDir).internalDir;
  const index = readEventIndex(root);
  const open = openCheckpointNumbers(internalDir)
    .map((n) => readOpenCheckpoint(internalDir, n))
    .filter((c): c is OpenCheckpoint => c !== null);
  const total = zero();
  for (const spend of Object.values(index.byDay)) {
    total.costUsd = Math.round((total.costUsd + spend.costUsd) * 1e6) / 1e6;
    total.tokensIn += spend.tokensIn;
    total.tokensOut += spend.tokensOut;
    total.runs += spend.runs;
  }
  const byCost = (a: CostRow, b: CostRow) => b.costUsd - a.costUsd || b.runs - a.runs;
  return {
    at: new Date(now).toISOString(),
    running: open.map((c) => running(c, index, options.now, options.bin ?? "baton")),
    results: index.results.slice(-recent).reverse(),
    refusals: index.refusals.slice(-recent).reverse(),
    costs: {
      total,
      today: index.byDay[new Date(now).toISOString().slice(0, 10)] ?? zero(),
      // The text shows the top few; a full sort of every task's row is for `--json`.
      byTask:
        options.topTasks === undefined
          ? rows(index.byTask).sort(byCost)
          : topRows(index.byTask, options.topTasks, byCost),
      byOperation: rows(index.byOperation).sort(byCost),
      byDay: rows(index.byDay)
        // Days are ISO dates: code-unit order is date order, and far cheaper than localeCompare.
        .sort((a, b) => (a.key < b.key ? 1 : a.key > b.key ? -1 : 0))
        .slice(0, 14),
    },
  };
}
