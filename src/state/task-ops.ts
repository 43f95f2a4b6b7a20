import { isoDate, TransitionError, UsageError } from "../shared/index.js";
import { recordAudit } from "./audit.js";
import { type CheckpointGuardOptions, guardOpenCheckpoint } from "./checkpoint-guard.js";
import { IN_PROGRESS_STATUSES } from "./lifecycle.js";
import { readLatin1 } from "./load-store.js";
import { detectLanguage, normalizeTitle, PRIORITIES, slugify } from "./naming.js";
import { firstFreeNumber } from "./numbering.js";
import { applyStatus } from "./status-changes.js";
import type { Transaction } from "./store.js";
import type { TaskEntry } from "./store-schema.js";
import { requireTask, requireTodoEntry } from "./task-lookup.js";
import { TERMINAL_STATUSES } from "./task-status.js";
import { learnTaskType, type TaskTypeConvention, taskTypeOf } from "./task-type.js";
import { entries } from "./todo-document.js";
import { buildEntry, insertEntry, setEntryField } from "./todo-entry.js";
import { frontmatterNextNumber } from "./todo-frontmatter.js";

export interface NewTaskInput {
  title: string;
  description?: string | undefined;
  language?: string | undefined;
  priority?: string | undefined;
  effort?: string | undefined;
  dependencies?: readonly number[] | undefined;
  parent?: number | undefined;
}

/** The repository's names for a task's type (learned once per write from its entries, or configured). */
export function taskTypeConvention(tx: Transaction): TaskTypeConvention {
  return learnTaskType(tx.tasks, tx.todo, { key: tx.config.taskTypeKey, field: tx.config.taskTypeField });
}

/** A configured language, or a type the repository's own tasks already carry (ModelChecker's `python`). */
export function validateLanguage(tx: Transaction, language: string): string {
  if (!tx.config.languages.includes(language) && !tx.tasks.some((t) => taskTypeOf(t) === language)) {
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
  const convention = taskTypeConvention(tx);
  const task = {
    project_number: number,
    project_name: slugify(title, tx.config.slug),
    status: "not_started",
    [convention.key]: language,
  } as TaskEntry;
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
      typeField: convention.field,
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
      language: taskTypeOf(parent) ?? tx.config.defaultLanguage,
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
