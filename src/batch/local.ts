import { statSync } from "node:fs";
import { approvalWait, notifyPendingApproval } from "../approvals/index.js";
import type { BatonConfig } from "../config/index.js";
import { eventsPath, parseEventLines, readFrom } from "../shared/event-stream.js";
import type { Operation } from "../state/index.js";
import { readSettledStore, storeContext, taskFolderPath, taskTypeOf } from "../state/index.js";
import type { BatchReport, BatchRequest, BatchRun, RunOne, Selection } from "./batch-types.js";
import { runLocally } from "./local-run.js";
import { type BatchTask, nextOperation, schedule, type Waiting } from "./schedule.js";
import { claimTask, type TaskClaim } from "./task-claim.js";

export type { BatchProgress, BatchReport, BatchRequest, BatchRun, RunOne, Selection } from "./batch-types.js";
export { runLocally } from "./local-run.js";

async function readTasks(config: BatonConfig): Promise<Array<BatchTask & { language: string }>> {
  const ctx = storeContext(config);
  const snapshot = await readSettledStore(ctx);
  const asksApproval = Object.keys(config.approvals.implement).length > 0;
  return Promise.all(
    snapshot.state.tasks.map(async (t) => {
      const wait =
        asksApproval && nextOperation(t.status) === "implement"
          ? approvalWait(config, t, taskFolderPath(ctx.paths.dir, t, config.artifactNaming))
          : null;
      // A plan that waits pauses its task (the others go on) and tells the person once.
      if (wait?.pending)
        await notifyPendingApproval(config, ctx.paths.internalDir, {
          task: t.project_number,
          title: t.project_name,
          ...wait.pending,
        });
      return {
        number: t.project_number,
        status: t.status,
        language: taskTypeOf(t) ?? config.defaultLanguage,
        dependencies: (t.dependencies ?? []).filter((d): d is number => typeof d === "number"),
        ...(wait ? { awaitingApproval: wait.reason } : {}),
      };
    }),
  );
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

/**
 * `baton run` on one machine: each selected task's next operation, up to `concurrency` at once, each
 * a real `baton <operation> N` process (GATE IN → DELEGATE → GATE OUT → COMMIT, substance checks, the
 * store lock, recovery of a dead run — all as when run by hand); `implement` runs its phases in git
 * worktrees. Progress comes from the event stream the runs write. Stopping (the signal) stops every
 * run cleanly; running again resumes from the statuses they left.
 */
export async function runBatch(request: BatchRequest, runOne?: RunOne): Promise<BatchReport> {
  const execute = runOne ?? ((task, operation, cap) => runLocally(request, task, operation, cap));
  const selected = selectTasks(await readTasks(request.config), request.selection);
  const batch = new Batch(request, selected, execute);
  const tail = eventTail(request, selected);
  const ticker = setInterval(tail, 250);
  try {
    await batch.run();
  } finally {
    clearInterval(ticker);
    tail();
  }
  return batch.report();
}

/** Relays the event stream's new lines about the selected tasks as progress. */
function eventTail(request: BatchRequest, selected: ReadonlySet<number>): () => void {
  let offset = streamSize(request.config.root);
  return () => {
    const { text, end } = readFrom(eventsPath(request.config.root), offset);
    offset = end;
    for (const event of parseEventLines(text))
      if (event.task !== undefined && selected.has(event.task))
        request.onProgress?.({ type: "event", event });
  };
}

/** One `baton run`: the schedule asked again after every run ends, until nothing more may start. */
class Batch {
  private readonly runs: BatchRun[] = [];
  private readonly failed = new Set<number>();
  private readonly running = new Map<number, Promise<void>>();
  /** Each running task's share of `--max-cost`. */
  private readonly caps = new Map<number, number>();
  private spent = 0;
  private stopped: BatchReport["stopped"] = "done";
  private waiting: Waiting[] = [];
  private finished: number[] = [];
  /** Tasks another `baton run` holds, with its pid: left to it. */
  private readonly elsewhere = new Map<number, number>();

  constructor(
    private readonly request: BatchRequest,
    private readonly selected: ReadonlySet<number>,
    private readonly execute: RunOne,
  ) {}

  async run(): Promise<void> {
    const { request } = this;
    for (;;) {
      if (request.signal.aborted) this.stopped = "signal";
      const plan = schedule(await readTasks(request.config), {
        selected: this.selected,
        running: new Set([...this.running.keys(), ...this.elsewhere.keys()]),
        failed: this.failed,
        until: request.until,
        slots: this.stopped === "done" ? request.concurrency - this.running.size : 0,
      });
      this.waiting = plan.waiting.filter((w) => !this.running.has(w.number));
      this.finished = plan.finished.sort((a, b) => a - b);
      const started = await this.startClaimed(plan.start);
      if (started === "budget") this.stopped = "budget";
      if (this.running.size === 0) return;
      await Promise.race(this.running.values());
    }
  }

  /**
   * Starts what the schedule allows, each task only under its claim (task-claim.ts) and only when its status
   * is still the one the schedule read: another `baton run` may have moved it since.
   */
  private async startClaimed(start: ReadonlyArray<{ number: number; operation: Operation }>) {
    const { config } = this.request;
    for (const { number, operation } of start) {
      const claim = claimTask(config.root, number);
      if ("heldBy" in claim) {
        this.elsewhere.set(number, claim.heldBy);
        continue;
      }
      const now = (await readTasks(config)).find((t) => t.number === number);
      if (!now || nextOperation(now.status) !== operation) {
        claim.release();
        continue;
      }
      const cap = this.costCap(number);
      if (cap === null) {
        claim.release();
        return "budget";
      }
      this.elsewhere.delete(number);
      this.start(number, operation, cap, claim);
    }
    return "ok";
  }

  /** The next run's share of what `--max-cost` leaves; null: nothing is left, the batch stops starting runs. */
  private costCap(number: number): number | undefined | null {
    const { maxCost, concurrency } = this.request;
    if (maxCost === undefined) return undefined;
    let reserved = 0;
    for (const c of this.caps.values()) reserved += c;
    const left = maxCost - this.spent - reserved;
    if (left <= 1e-6) {
      this.stopped = "budget";
      return null;
    }
    const cap = left / Math.max(1, concurrency - this.running.size);
    this.caps.set(number, cap);
    return cap;
  }

  private start(number: number, operation: Operation, cap: number | undefined, claim: TaskClaim): void {
    const done = this.execute(number, operation, cap).then((run) => {
      this.spent += run.costUsd ?? 0;
      this.caps.delete(number);
      // A run that did not get its task further is not tried again in this batch; `baton run` again does.
      if (!run.ok) this.failed.add(number);
      this.runs.push(run);
      this.request.onProgress?.({ type: "finished", run });
    });
    this.running.set(
      number,
      done.finally(() => {
        claim.release();
        this.running.delete(number);
      }),
    );
  }

  report(): BatchReport {
    const { stopped, runs } = this;
    let waiting = this.waiting;
    if (stopped !== "done") {
      const reason = stopped === "budget" ? "not started: --max-cost is spent" : "not started: stopped";
      waiting = waiting.map((w) => (w.reason === "no free slot" ? { ...w, reason } : w));
    }
    for (const [n, pid] of this.elsewhere)
      waiting.push({ number: n, reason: `run by another baton run (pid ${pid})` });
    for (const n of this.failed) {
      const last = runs.filter((r) => r.task === n).at(-1);
      waiting.push({
        number: n,
        reason: `${last?.operation ?? "run"} failed${last?.code ? ` [${last.code}]` : ""}`,
      });
    }
    const selected = [...this.selected].sort((a, b) => a - b);
    return { selected, runs, finished: this.finished, waiting, stopped, spentUsd: this.spent };
  }
}

function streamSize(root: string): number {
  try {
    return statSync(eventsPath(root)).size;
  } catch {
    return 0;
  }
}
