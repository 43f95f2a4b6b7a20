import { storeInternalPaths } from "../shared/baton-paths.js";
import { present } from "../shared/present.js";
import { keepOffsets } from "./entry-offsets.js";
import type { Snapshot, StoreContext } from "./store-context.js";
import { type PackedRow, pack, storeKey, writeStoreSummary } from "./summary-file.js";
import { learnTaskType, type TaskTypeConvention } from "./task-type.js";
import { taskViews } from "./views.js";

export function summarize(
  ctx: StoreContext,
  snapshot: Snapshot,
): { packed: PackedRow[]; taskType: TaskTypeConvention } {
  return {
    packed: taskViews(snapshot).map(pack),
    taskType: learnTaskType(snapshot.state.tasks, snapshot.todo, {
      key: ctx.config.taskTypeKey,
      field: ctx.config.taskTypeField,
    }),
  };
}

/**
 * After a write, under the store's lock: the summary of what was just written, from the documents the
 * write rendered, so the next `task list` reads it instead of the files. A store with an irregular entry
 * keeps none (its messages name lines the write may have moved); the next read builds it.
 */
export function summarizeWrite(
  ctx: StoreContext,
  written: Snapshot,
  texts: { state: string; todo: string },
): void {
  if (written.state.irregular.length > 0 || written.todo.irregular.length > 0) return;
  if (present(ctx.paths.journal) || !present(ctx.paths.internalDir)) return;
  try {
    const key = storeKey(ctx);
    const { packed, taskType } = summarize(ctx, written);
    writeStoreSummary(storeInternalPaths(ctx.paths.internalDir).summaryCache, ctx.paths.internalDir, {
      key,
      rows: packed,
      taskType,
    });
    keepOffsets(ctx, key, written, texts);
  } catch {
    // A summary is an optimisation: the next read builds it.
  }
}
