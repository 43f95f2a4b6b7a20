// side door: the fast read path and the hooks load state's modules one by one; the config face brings its loader
import {
  type ConventionSource,
  TASK_TYPE_FIELDS,
  TASK_TYPE_KEYS,
  type TaskTypeField,
  type TaskTypeKey,
} from "../config/repository-conventions.js";
import type { TaskEntry } from "./store-schema.js";
import { entries, type TodoDocument } from "./todo-document.js";
import { getEntryField } from "./todo-entry.js";

// A task's type is read under whichever of its names an entry has, and written under the one the repository uses.

export function taskTypeOf(task: Pick<TaskEntry, "language"> & Record<string, unknown>): string | undefined {
  if (typeof task.language === "string" && task.language !== "") return task.language;
  const other = task["task_type"];
  return typeof other === "string" && other !== "" ? other : undefined;
}

/** Sets the type under the key the entry already has, else under the repository's key. */
export function setTaskType(task: TaskEntry, value: string, key: TaskTypeKey): void {
  const existing = TASK_TYPE_KEYS.find((k) => typeof task[k] === "string");
  (task as Record<string, unknown>)[existing ?? key] = value;
}

export interface TaskTypeConvention {
  key: TaskTypeKey;
  field: TaskTypeField;
  /** "config" when baton.config says so, "repository" when learned from its entries, else "default". */
  from: ConventionSource;
}

/** The name most entries use; ties and an empty store keep Baton's own (`language`, `Language`). */
export function learnTaskType(
  tasks: readonly TaskEntry[],
  todo: TodoDocument | null,
  configured: { key?: TaskTypeKey | undefined; field?: TaskTypeField | undefined },
): TaskTypeConvention {
  const keyCounts = new Map<TaskTypeKey, number>();
  for (const task of tasks.slice(0, 200)) {
    for (const key of TASK_TYPE_KEYS) {
      if (typeof task[key] === "string") keyCounts.set(key, (keyCounts.get(key) ?? 0) + 1);
    }
  }
  const fieldCounts = new Map<TaskTypeField, number>();
  let seen = 0;
  for (const entry of todo ? entries(todo) : []) {
    if (++seen > 200) break;
    const field = TASK_TYPE_FIELDS.find((f) => getEntryField(entry, [f]) !== undefined);
    if (field) fieldCounts.set(field, (fieldCounts.get(field) ?? 0) + 1);
  }
  const key = configured.key ?? mostUsed(keyCounts, "language");
  const field = configured.field ?? mostUsed(fieldCounts, "Language");
  const from =
    configured.key || configured.field
      ? "config"
      : keyCounts.size + fieldCounts.size > 0
        ? "repository"
        : "default";
  return { key, field, from };
}

function mostUsed<T>(counts: Map<T, number>, fallback: T): T {
  let best = fallback;
  let bestCount = counts.get(fallback) ?? 0;
  for (const [value, count] of counts) {
    if (count > bestCount) {
      best = value;
      bestCount = count;
    }
  }
  return best;
}
