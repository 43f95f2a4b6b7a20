import { TaskNotFoundError } from "../shared/index.js";
import { irregularEntryError } from "./irregularity.js";
import { titleFromSlug } from "./naming.js";
import type { Transaction } from "./store.js";
import type { TaskEntry } from "./store-schema.js";
import { taskTypeOf } from "./task-type.js";
import type { TodoEntry } from "./todo-document.js";
import { buildEntry, insertEntry } from "./todo-entry.js";

export function requireTask(tx: Transaction, number: number): TaskEntry {
  const task = tx.findTask(number);
  if (!task) {
    throw new TaskNotFoundError(number, `${tx.paths.state} (active tasks)`, {
      hint: "`baton task list` shows active tasks; archived ones come back with `baton task recover N`.",
    });
  }
  // A write to a task Baton could only partly read stops here, before it decides anything on that reading.
  const guard = tx.state.guards.get(task);
  if (guard) throw irregularEntryError(guard.irregularity);
  const entry = tx.findTodoEntry(number);
  const todoGuard = entry && tx.todo.guards.get(entry);
  if (todoGuard) throw irregularEntryError(todoGuard.irregularity);
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
    language: taskTypeOf(task) ?? tx.config.defaultLanguage,
    effort: task.effort === undefined ? undefined : String(task.effort),
    priority: task.priority,
    created: (task.created ?? tx.timestamp).slice(0, 10),
    description: task.description,
  });
  insertEntry(tx.todo, entry, tx.config.newTaskPosition);
  return entry;
}
