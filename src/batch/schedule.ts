import type { Operation } from "../state/index.js";

/**
 * `baton run`: which operation each selected task needs next, and which may start now. Pure: the
 * scheduler (one machine, or the queue's coordinator) asks again after every run ends.
 */
export type RunTarget = "researched" | "planned" | "completed";

export interface BatchTask {
  number: number;
  status: string;
  /** Numbers of the tasks it depends on (non-numeric entries are ignored). */
  dependencies: number[];
  /** Why its `implement` waits for a person (approvals.implement); absent when it need not. */
  awaitingApproval?: string | undefined;
}

/** The operation that moves a task on from its status; null when there is none (done, blocked, …). */
export function nextOperation(status: string): Operation | null {
  switch (status) {
    case "not_started":
    case "researching":
      return "research";
    case "researched":
    case "planning":
      return "plan";
    case "planned":
    case "implementing":
    case "partial":
      return "implement";
    default:
      return null;
  }
}

const RANK: Record<Operation, number> = { research: 1, plan: 2, implement: 3, revise: 2 };
const TARGET_RANK: Record<RunTarget, number> = { researched: 1, planned: 2, completed: 3 };

/** Whether running `operation` stays within `--until`. */
export function withinTarget(operation: Operation, until: RunTarget): boolean {
  return RANK[operation] <= TARGET_RANK[until];
}

export type Waiting = { number: number; reason: string };

export interface Schedule {
  start: Array<{ number: number; operation: Operation }>;
  waiting: Waiting[];
  /** Selected tasks with nothing left to do within the target. */
  finished: number[];
}

/**
 * What may start now: each selected task not running, not given up on in this run, whose next
 * operation is within the target; an `implement` waits until every task it depends on is completed
 * (code is built on code), research and plans do not wait. At most `slots` start.
 */
export function schedule(
  tasks: BatchTask[],
  options: {
    selected: ReadonlySet<number>;
    running: ReadonlySet<number>;
    failed: ReadonlySet<number>;
    until: RunTarget;
    slots: number;
  },
): Schedule {
  const statusOf = new Map(tasks.map((t) => [t.number, t.status]));
  const out: Schedule = { start: [], waiting: [], finished: [] };
  for (const task of tasks) {
    if (!options.selected.has(task.number) || options.running.has(task.number)) continue;
    if (options.failed.has(task.number)) continue;
    const operation = nextOperation(task.status);
    if (!operation || !withinTarget(operation, options.until)) {
      out.finished.push(task.number);
      continue;
    }
    if (operation === "implement" && task.awaitingApproval) {
      out.waiting.push({ number: task.number, reason: task.awaitingApproval });
      continue;
    }
    if (operation === "implement") {
      const pending = task.dependencies.filter((d) => {
        const status = statusOf.get(d);
        return status !== undefined && status !== "completed" && status !== "abandoned";
      });
      if (pending.length > 0) {
        out.waiting.push({ number: task.number, reason: `implement waits for task ${pending.join(", ")}` });
        continue;
      }
    }
    if (out.start.length < options.slots) out.start.push({ number: task.number, operation });
    else out.waiting.push({ number: task.number, reason: "no free slot" });
  }
  return out;
}

/** `12,14-16` → [12, 14, 15, 16]; throws a message naming the bad part. */
export function parseTaskRanges(value: string): number[] {
  const out: number[] = [];
  for (const part of value
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean)) {
    const range = /^(\d+)-(\d+)$/.exec(part);
    if (range) {
      const [a, b] = [Number(range[1]), Number(range[2])];
      if (a > b || b - a > 100_000) throw new Error(`"${part}" is not a range from low to high`);
      for (let n = a; n <= b; n++) out.push(n);
    } else if (/^\d+$/.test(part)) out.push(Number(part));
    else throw new Error(`"${part}" is not a task number or a range like 14-16`);
  }
  return [...new Set(out)];
}
