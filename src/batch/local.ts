import { statSync } from "node:fs";
import type { BatonConfig } from "../config/index.js";
import { type BatonEvent, eventsPath, parseEventLines, readFrom } from "../shared/event-stream.js";
import { binScript } from "../shared/package.js";
import { runProcess } from "../shared/process.js";
import type { Operation } from "../state/index.js";
import { readSettledStore, storeContext } from "../state/index.js";
import { type BatchTask, nextOperation, type RunTarget, schedule, type Waiting } from "./schedule.js";

/**
 * `baton run` on one machine: each selected task's next operation, up to `concurrency` at once, each
 * a real `baton <operation> N` process (GATE IN → DELEGATE → GATE OUT → COMMIT, substance checks, the
 * store lock, recovery of a dead run — all as when run by hand); `implement` runs its phases in git
 * worktrees. Progress comes from the event stream the runs write. Stopping (the signal) stops every
 * run cleanly; running again resumes from the statuses they left.
 */
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

async function readTasks(config: BatonConfig): Promise<Array<BatchTask & { language: string }>> {
  const snapshot = await readSettledStore(storeContext(config));
  return snapshot.state.tasks.map((t) => ({
    number: t.project_number,
    status: t.status,
    language: t.language ?? config.defaultLanguage,
    dependencies: (t.dependencies ?? []).filter((d): d is number => typeof d === "number"),
  }));
}

/** The selected task numbers: the union of what each option names, among active tasks. */
export function selectTasks(
  tasks: Array<BatchTask & { language: string }>,
  selection: Selection,
): Set<number> {
  const all = !selection.tasks && !selection.statuses && !selection.languages;
  return new Set(
    tasks
      .filter(
        (t) =>
          (selection.allReady === true && nextOperation(t.status) !== null) ||
          (!all &&
            (selection.tasks?.includes(t.number) ?? true) &&
            (selection.statuses?.includes(t.status) ?? true) &&
            (selection.languages?.includes(t.language) ?? true)),
      )
      .map((t) => t.number),
  );
}

function operationArgs(request: BatchRequest, operation: Operation, cap: number | undefined): string[] {
  const args = ["--json", ...request.operationArgs];
  if (operation === "implement" && !request.operationArgs.includes("--isolate"))
    args.push("--isolate", "worktree");
  if (cap !== undefined) args.push("--max-cost", cap.toFixed(6));
  return args;
}

/** Runs one operation on one task and says how it ended: a local process, or a job on the queue. */
export type RunOne = (task: number, operation: Operation, cap: number | undefined) => Promise<BatchRun>;

export async function runBatch(request: BatchRequest, runOne?: RunOne): Promise<BatchReport> {
  const execute = runOne ?? ((task, operation, cap) => runLocally(request, task, operation, cap));
  const { config } = request;
  const tasks = await readTasks(config);
  const selected = selectTasks(tasks, request.selection);
  const runs: BatchRun[] = [];
  const failed = new Set<number>();
  const running = new Map<number, Promise<void>>();
  const caps = new Map<number, number>();
  let spent = 0;
  let stopped: BatchReport["stopped"] = "done";
  let offset = streamSize(config.root);
  const tail = () => {
    const { text, end } = readFrom(eventsPath(config.root), offset);
    offset = end;
    for (const event of parseEventLines(text))
      if (event.task !== undefined && selected.has(event.task))
        request.onProgress?.({ type: "event", event });
  };
  const ticker = setInterval(tail, 250);
  let waiting: Waiting[] = [];
  let finished: number[] = [];
  try {
    for (;;) {
      if (request.signal.aborted) stopped = "signal";
      const current = await readTasks(config);
      const plan = schedule(current, {
        selected,
        running: new Set(running.keys()),
        failed,
        until: request.until,
        slots: stopped === "done" ? request.concurrency - running.size : 0,
      });
      waiting = plan.waiting.filter((w) => !running.has(w.number));
      finished = plan.finished.sort((a, b) => a - b);
      for (const { number, operation } of plan.start) {
        let cap: number | undefined;
        if (request.maxCost !== undefined) {
          let reserved = 0;
          for (const c of caps.values()) reserved += c;
          const left = request.maxCost - spent - reserved;
          if (left <= 1e-6) {
            stopped = "budget";
            break;
          }
          cap = left / Math.max(1, request.concurrency - running.size);
          caps.set(number, cap);
        }
        const done = execute(number, operation, cap).then((run) => {
          spent += run.costUsd ?? 0;
          caps.delete(number);
          // A run that did not get its task further is not tried again in this batch; `baton run` again does.
          if (!run.ok) failed.add(number);
          runs.push(run);
          request.onProgress?.({ type: "finished", run });
        });
        running.set(
          number,
          done.finally(() => running.delete(number)),
        );
      }
      if (running.size === 0) break;
      await Promise.race(running.values());
    }
  } finally {
    clearInterval(ticker);
    tail();
  }
  if (stopped !== "done") {
    waiting = waiting.map((w) =>
      w.reason === "no free slot"
        ? { ...w, reason: stopped === "budget" ? "not started: --max-cost is spent" : "not started: stopped" }
        : w,
    );
  }
  for (const n of failed) {
    const last = runs.filter((r) => r.task === n).at(-1);
    waiting.push({
      number: n,
      reason: `${last?.operation ?? "run"} failed${last?.code ? ` [${last.code}]` : ""}`,
    });
  }
  return { selected: [...selected].sort((a, b) => a - b), runs, finished, waiting, stopped, spentUsd: spent };
}

function streamSize(root: string): number {
  try {
    return statSync(eventsPath(root)).size;
  } catch {
    return 0;
  }
}

/** One operation as its own `baton <operation> N --json` process, whose report says how it ended. */
export async function runLocally(
  request: BatchRequest,
  number: number,
  operation: Operation,
  cap: number | undefined,
): Promise<BatchRun> {
  const started = Date.now();
  const result = await runProcess({
    command: process.execPath,
    args: [binScript(), operation, String(number), ...operationArgs(request, operation, cap)],
    cwd: request.config.root,
    timeoutMs: 0,
    signal: request.signal,
    // A stopped run records its failure and kills its agent before it exits: give it the time.
    killGraceMs: 20_000,
    onParentStop: "owner",
    tailBytes: 4 * 1024 * 1024,
    onSpawn: (pid) => request.onProgress?.({ type: "started", task: number, operation, pid }),
  });
  const run: BatchRun = { task: number, operation, ok: false, durationMs: Date.now() - started };
  try {
    const report = JSON.parse(result.stdout) as {
      sessionId: string;
      status: string;
      result: { ok: boolean; code?: string; message?: string };
      usage?: { costUsd?: number };
      budget?: { message: string };
    };
    run.ok = report.result.ok && !report.budget;
    run.session = report.sessionId;
    run.status = report.status;
    if (!report.result.ok) {
      run.code = report.result.code;
      run.message = report.result.message;
    } else if (report.budget) {
      run.code = "BUDGET_EXCEEDED";
      run.message = report.budget.message;
    }
    if (report.usage?.costUsd !== undefined) run.costUsd = report.usage.costUsd;
  } catch {
    const said = (result.stderr || result.stdout).trim().split("\n").slice(-3).join(" ");
    run.code = /BUDGET_EXCEEDED/.test(said) ? "BUDGET_EXCEEDED" : result.ok ? "NO_REPORT" : "RUN_FAILED";
    run.message = said || ("message" in result ? result.message : "no report");
  }
  return run;
}
