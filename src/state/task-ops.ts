import { isoDate, TaskNotFoundError, TransitionError, UsageError } from "../shared/index.js";
import { type CheckpointGuardOptions, guardOpenCheckpoint } from "./checkpoint-guard.js";
import { assertVerdict, checkManualTransition } from "./lifecycle.js";
import { readLatin1 } from "./load-store.js";
import { detectLanguage, normalizeTitle, PRIORITIES, slugify, titleFromSlug } from "./naming.js";
import { firstFreeNumber } from "./numbering.js";
import type { Transaction } from "./store.js";
import type { TaskEntry } from "./store-schema.js";
import { IN_PROGRESS_STATUSES, TERMINAL_STATUSES } from "./task-status.js";
import { entries, frontmatterNextNumber, type TodoEntry } from "./todo-document.js";
import {
  buildEntry,
  getEntryField,
  insertEntry,
  removeEntryField,
  setEntryField,
  setEntryStatus,
} from "./todo-entry.js";

export interface NewTaskInput {
  title: string;
  description?: string | undefined;
  language?: string | undefined;
  priority?: string | undefined;
  effort?: string | undefined;
  dependencies?: readonly number[] | undefined;
  parent?: number | undefined;
}

export function requireTask(tx: Transaction, number: number): TaskEntry {
  const task = tx.findTask(number);
  if (!task) {
    throw new TaskNotFoundError(number, `${tx.paths.state} (active tasks)`, {
      hint: "`baton task list` shows active tasks; archived ones come back with `baton task recover N`.",
    });
  }
  return task;
}

/** Every active task has a TODO entry; one lost by hand is rebuilt from state.json before editing. */
export function requireTodoEntry(tx: Transaction, task: TaskEntry): TodoEntry {
  const existing = tx.findTodoEntry(task.project_number);
  if (existing) return existing;
  const entry = buildEntry({
    number: task.project_number,
    title: titleFromSlug(task.project_name),
    status: task.status,
    language: task.language ?? tx.config.defaultLanguage,
    effort: task.effort === undefined ? undefined : String(task.effort),
    priority: task.priority,
    created: (task.created ?? tx.timestamp).slice(0, 10),
    description: task.description,
  });
  insertEntry(tx.todo, entry, tx.config.newTaskPosition);
  return entry;
}

export function validateLanguage(tx: Transaction, language: string): string {
  if (!tx.config.languages.includes(language)) {
    throw new UsageError(`unknown language "${language}"`, {
      hint: `Use one of: ${tx.config.languages.join(", ")} (or add it to "languages" in baton.config.json).`,
    });
  }
  return language;
}

export function validatePriority(priority: string): string {
  const p = priority.toLowerCase();
  if (!(PRIORITIES as readonly string[]).includes(p)) {
    throw new UsageError(`unknown priority "${priority}"`, { hint: `Use one of: ${PRIORITIES.join(", ")}.` });
  }
  return p;
}

function archivedNumbers(tx: Transaction): Set<number> {
  return new Set(tx.archive().entries.map((e) => e.project_number));
}

export function validateDependencies(
  tx: Transaction,
  self: number | null,
  dependencies: readonly number[],
): number[] {
  const unique = [...new Set(dependencies)];
  const archived = unique.some((d) => !tx.findTask(d)) ? archivedNumbers(tx) : new Set<number>();
  for (const dep of unique) {
    if (dep === self) throw new UsageError(`task ${self} cannot depend on itself`);
    if (!tx.findTask(dep) && !archived.has(dep)) {
      throw new UsageError(`dependency ${dep} is not an active or archived task`, {
        hint: "List existing tasks with `baton task list`.",
      });
    }
  }
  return unique;
}

/**
 * The next free number: `next_project_number` (the higher copy), moved past every number a live task,
 * a TODO-only entry or an archived task holds (the original reused numbers; see numbering.ts).
 */
function allocateNumber(tx: Transaction): number {
  const start = Math.max(tx.state.doc.value.next_project_number, frontmatterNextNumber(tx.todo) ?? 0);
  const live = new Set(tx.tasks.map((t) => t.project_number));
  for (const entry of entries(tx.todo)) live.add(entry.number);
  // A byte-level probe first: parsing a large archive only to learn that no number near `start` is
  // taken is the slow path. latin1 decoding is a plain copy, and ASCII digits and keys read the same in it.
  const archiveText = tx.archiveLoaded ? tx.archive().doc.text : (readLatin1(tx.paths.archiveState) ?? "");
  let archived: Set<number> | null = null;
  return firstFreeNumber(start, (n) => {
    if (live.has(n)) return true;
    if (archived === null) {
      if (!new RegExp(`"project_number":\\s*${n}\\b`).test(archiveText)) return false;
      archived = archivedNumbers(tx);
    }
    return archived.has(n);
  });
}

export function addTask(tx: Transaction, input: NewTaskInput): TaskEntry {
  const title = normalizeTitle(input.title);
  if (title === "") throw new UsageError("a task needs a title");
  const language = validateLanguage(
    tx,
    input.language ??
      detectLanguage(`${title} ${input.description ?? ""}`, tx.config.languages, tx.config.defaultLanguage),
  );
  const priority = input.priority === undefined ? undefined : validatePriority(input.priority);
  const number = allocateNumber(tx);
  const dependencies = validateDependencies(tx, number, input.dependencies ?? []);
  const task: TaskEntry = {
    project_number: number,
    project_name: slugify(title, tx.config.slug),
    status: "not_started",
    language,
  };
  if (priority) task.priority = priority;
  if (input.effort) task.effort = input.effort;
  if (input.description) task.description = input.description;
  if (dependencies.length > 0) task.dependencies = dependencies;
  if (input.parent !== undefined) task.parent_task = input.parent;
  task.created = tx.timestamp;
  task.last_updated = tx.timestamp;
  if (tx.config.newTaskPosition === "top") tx.tasks.unshift(task);
  else tx.tasks.push(task);
  tx.state.doc.value.next_project_number = number + 1;
  insertEntry(
    tx.todo,
    buildEntry({
      number,
      title,
      status: "not_started",
      language,
      effort: input.effort,
      priority,
      dependencies,
      parent: input.parent,
      created: isoDate(tx.now),
      description: input.description,
    }),
    tx.config.newTaskPosition,
  );
  return task;
}

/** The lifecycle timestamp each status records (format reference 2.2). */
const STATUS_STAMP: Record<string, string> = {
  researched: "researched",
  planned: "planned",
  completed: "completed",
  abandoned: "abandoned",
};

export interface AuditNote {
  timestamp: string;
  action: string;
  from: string;
  to: string;
  note: string;
}

/** A forced change is kept on the task itself, so the override stays visible in reviewed diffs. */
export function recordAudit(task: TaskEntry, note: AuditNote): void {
  const existing = Array.isArray(task["baton_audit"]) ? (task["baton_audit"] as AuditNote[]) : [];
  task["baton_audit"] = [...existing, note];
}

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

export interface SubtaskInput {
  title: string;
  description?: string | undefined;
  effort?: string | undefined;
}

export function expandTask(
  tx: Transaction,
  number: number,
  subtasks: readonly SubtaskInput[],
  options: CheckpointGuardOptions = {},
) {
  const force = options.force ?? false;
  const parent = requireTask(tx, number);
  guardOpenCheckpoint(tx, parent, "expand it", options);
  if (subtasks.length === 0)
    throw new UsageError("expand needs at least one subtask", {
      hint: 'Pass --subtask "Title" once per subtask.',
    });
  if (TERMINAL_STATUSES.includes(parent.status) || parent.status === "expanded") {
    throw new TransitionError(`task ${number}: cannot expand a ${parent.status} task`);
  }
  if (IN_PROGRESS_STATUSES.includes(parent.status) && !force) {
    throw new TransitionError(
      `task ${number}: cannot expand while it is ${parent.status} (an operation is running)`,
      {
        hint: "Wait for the operation to finish, or pass --force if it is stale.",
      },
    );
  }
  const from = parent.status;
  const created = subtasks.map((s) =>
    addTask(tx, {
      title: s.title,
      description: s.description,
      effort: s.effort,
      language: parent.language ?? tx.config.defaultLanguage,
      priority: parent.priority,
      parent: number,
    }),
  );
  const numbers = created.map((t) => t.project_number);
  parent.subtasks = [...(parent.subtasks ?? []), ...numbers];
  applyStatus(tx, parent, "expanded");
  const entry = requireTodoEntry(tx, parent);
  setEntryField(entry, ["Subtasks"], parent.subtasks.join(", "));
  setEntryField(entry, ["Expanded"], isoDate(tx.now));
  if (IN_PROGRESS_STATUSES.includes(from)) {
    recordAudit(parent, {
      timestamp: tx.timestamp,
      action: "expand --force",
      from,
      to: "expanded",
      note: "expanded while in progress",
    });
  }
  return { parent: number, subtasks: numbers };
}
