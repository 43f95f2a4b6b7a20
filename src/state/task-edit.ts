// side door: the fast read path and the hooks load state's modules one by one; the config face brings its loader
import { TASK_TYPE_FIELDS } from "../config/repository-conventions.js";
import { UsageError } from "../shared/index.js";
import { type CheckpointGuardOptions, guardOpenCheckpoint } from "./checkpoint-guard.js";
import { normalizeTitle } from "./naming.js";
import type { Transaction } from "./store.js";
import type { TaskEntry } from "./store-schema.js";
import { requireTask, requireTodoEntry } from "./task-lookup.js";
import { taskTypeConvention, validateDependencies, validateLanguage, validatePriority } from "./task-ops.js";
import { setTaskType } from "./task-type.js";
import { removeEntryField, setEntryDescription, setEntryField, setEntryTitle } from "./todo-entry.js";

export interface TaskEdit {
  title?: string | undefined;
  description?: string | undefined;
  language?: string | undefined;
  priority?: string | undefined;
  effort?: string | undefined;
  dependencies?: readonly number[] | undefined;
}

export function editTask(
  tx: Transaction,
  number: number,
  edit: TaskEdit,
  options: CheckpointGuardOptions = {},
): TaskEntry {
  const task = requireTask(tx, number);
  guardOpenCheckpoint(tx, task, "edit it", options);
  const entry = requireTodoEntry(tx, task);
  if (Object.values(edit).every((v) => v === undefined)) {
    throw new UsageError("nothing to edit", {
      hint: "Pass at least one of --title, --description, --language, --priority, --effort, --depends.",
    });
  }
  if (edit.title !== undefined) {
    const title = normalizeTitle(edit.title);
    if (title === "") throw new UsageError("the title cannot be empty");
    setEntryTitle(entry, title);
  }
  if (edit.description !== undefined) {
    task.description = edit.description;
    setEntryDescription(entry, edit.description);
  }
  if (edit.language !== undefined) {
    const language = validateLanguage(tx, edit.language);
    const convention = taskTypeConvention(tx);
    setTaskType(task, language, convention.key);
    // An existing line under any of the names is changed in place; a new one takes the repository's name.
    const names = [convention.field, ...TASK_TYPE_FIELDS.filter((f) => f !== convention.field)];
    setEntryField(entry, names, language, ["Status"]);
  }
  if (edit.priority !== undefined) {
    task.priority = validatePriority(edit.priority);
    setEntryField(entry, ["Priority"], task.priority);
  }
  if (edit.effort !== undefined) {
    task.effort = edit.effort;
    setEntryField(entry, ["Effort"], edit.effort, []);
  }
  if (edit.dependencies !== undefined) {
    const deps = validateDependencies(tx, number, edit.dependencies);
    if (deps.length === 0) {
      delete task.dependencies;
      removeEntryField(entry, ["Dependencies"]);
    } else {
      task.dependencies = deps;
      setEntryField(entry, ["Dependencies", "Depends On", "Depends"], deps.join(", "), [
        "Priority",
        "Language",
      ]);
    }
  }
  task.last_updated = tx.timestamp;
  return task;
}
