import { UsageError } from "../shared/index.js";
import { recordAudit } from "./audit.js";
import {
  type CheckpointGuardOptions,
  guardOpenCheckpoint,
  refuseForceInSession,
} from "./checkpoint-guard.js";
import { assertVerdict, checkManualTransition } from "./lifecycle.js";
import type { Transaction } from "./store.js";
import type { TaskEntry } from "./store-schema.js";
import { requireTask, requireTodoEntry } from "./task-lookup.js";
import { TERMINAL_STATUSES } from "./task-status.js";
import { getEntryField, removeEntryField, setEntryField, setEntryStatus } from "./todo-entry.js";

/** Status changes: the one write every status goes through, manual moves, and expanded parents completing. */

/** The lifecycle timestamp each status records (format reference 2.2). */
const STATUS_STAMP: Record<string, string> = {
  researched: "researched",
  planned: "planned",
  completed: "completed",
  abandoned: "abandoned",
};

export interface StatusChange {
  number: number;
  from: string;
  to: string;
  forced: boolean;
  autoCompleted: number[];
}

export interface StatusOptions extends CheckpointGuardOptions {
  reason?: string | undefined;
  summary?: string | undefined;
}

/**
 * Writes a status to state.json and TODO.md together; the one primitive every status change uses.
 * `keepStamp` is for manual moves: going back to `researched` after a block must not rewrite when
 * the research actually happened, so an existing lifecycle timestamp is kept.
 */
export function applyStatus(tx: Transaction, task: TaskEntry, status: string, keepStamp = false): void {
  task.status = status;
  task.last_updated = tx.timestamp;
  const stamp = STATUS_STAMP[status];
  if (stamp && !(keepStamp && typeof task[stamp] === "string")) task[stamp] = tx.timestamp;
  setEntryStatus(requireTodoEntry(tx, task), status);
}

export function changeStatus(
  tx: Transaction,
  number: number,
  target: string,
  options: StatusOptions = {},
): StatusChange {
  const task = requireTask(tx, number);
  guardOpenCheckpoint(tx, task, `move it to ${target}`, options);
  const from = task.status;
  const { forced } = assertVerdict(checkManualTransition(from, target, options.force ?? false), number);
  if (forced) refuseForceInSession(tx, number, `move it to ${target}`);
  const entry = requireTodoEntry(tx, task);
  if (from === "blocked" && typeof task["blocked_reason"] === "string") {
    // Only the reason Baton itself wrote is cleared; a hand-written "Blocked on" line stays as history.
    if (getEntryField(entry, ["Blocked on"])?.trim() === task["blocked_reason"])
      removeEntryField(entry, ["Blocked on"]);
    delete task["blocked_reason"];
  }
  if (target === "blocked") {
    if (!options.reason)
      throw new UsageError("blocking a task needs a reason", { hint: 'Pass --reason "…".' });
    task["blocked_reason"] = options.reason;
    setEntryField(entry, ["Blocked on"], options.reason);
  }
  if (target === "completed" && options.summary) {
    task["completion_summary"] = options.summary;
  }
  applyStatus(tx, task, target, true);
  if (forced) {
    recordAudit(task, {
      timestamp: tx.timestamp,
      action: "status --force",
      from,
      to: target,
      note: options.reason ?? "forced past the lifecycle table",
    });
  }
  const autoCompleted = TERMINAL_STATUSES.includes(target) ? autoCompleteExpanded(tx) : [];
  return { number, from, to: target, forced, autoCompleted };
}

/**
 * An expanded parent completes itself once every subtask is completed or abandoned; a subtask no
 * longer active counts by its archived status (format reference 7).
 */
export function autoCompleteExpanded(tx: Transaction): number[] {
  const done: number[] = [];
  // A completed parent may be the last open subtask of its own parent: repeat until nothing changes.
  for (let more = true; more; ) {
    const before = done.length;
    completeFinishedParents(tx, done);
    more = done.length > before;
  }
  return done;
}

function completeFinishedParents(tx: Transaction, done: number[]): void {
  for (const parent of tx.tasks) {
    if (parent.status !== "expanded" || !parent.subtasks || parent.subtasks.length === 0) continue;
    let completed = 0;
    let abandoned = 0;
    let open = false;
    for (const n of parent.subtasks) {
      const sub = tx.findTask(n);
      const status = sub ? sub.status : archivedStatus(tx, n);
      if (status === "abandoned") abandoned++;
      else if (status === "completed" || status === undefined || !sub) completed++;
      else open = true;
    }
    if (open) continue;
    parent["auto_completed"] = true;
    parent["completion_summary"] =
      `Expanded task auto-completed: ${completed} subtasks completed` +
      (abandoned > 0 ? `, ${abandoned} subtasks abandoned` : "");
    applyStatus(tx, parent, "completed");
    done.push(parent.project_number);
  }
}

function archivedStatus(tx: Transaction, number: number): string | undefined {
  return tx.archive().entries.find((e) => e.project_number === number)?.status;
}
