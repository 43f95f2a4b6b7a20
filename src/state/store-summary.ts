import { storeInternalPaths } from "../shared/baton-paths.js";
import { present } from "../shared/present.js";
import { keepOffsets } from "./entry-offsets.js";
import { sessionActive } from "./open-checkpoint.js";
import { readSettledStore, requireStore, type Snapshot, type StoreContext } from "./store.js";
import {
  type PackedRow,
  pack,
  readSummary,
  storeKey,
  type TaskRow,
  unpack,
  writeStoreSummary,
} from "./summary-file.js";
import { learnTaskType, type TaskTypeConvention } from "./task-type.js";
import { taskViews } from "./views.js";

export type { TaskRow } from "./summary-file.js";

/**
 * What `task list` and `status` show of the store, kept beside it (`specs/.baton/cache/`, ignored by git)
 * for as long as state.json and TODO.md are the files it was read from: the same size, inode, and change
 * and modification times to the nanosecond. Any write (Baton's are renames: a new inode), a hand edit, a
 * checkout invalidates it. A 10,000-task list then reads a digest instead of parsing 10 MB.
 */
export interface StoreSummary {
  rows: TaskRow[];
  taskType: TaskTypeConvention;
}

/** The kept summary when it still describes the files; null otherwise. Reads only, never settles. */
export function peekStoreSummary(ctx: StoreContext): StoreSummary | null {
  if (present(ctx.paths.journal) || sessionActive(ctx.paths)) return null;
  const cached = readSummary(storeInternalPaths(ctx.paths.internalDir).summaryCache);
  return cached?.key === storeKey(ctx) ? { rows: cached.rows.map(unpack), taskType: cached.taskType } : null;
}

export async function readStoreSummary(ctx: StoreContext): Promise<StoreSummary> {
  requireStore(ctx);
  const path = storeInternalPaths(ctx.paths.internalDir).summaryCache;
  // A write in flight or a session's checkpoint: the settled read decides what the files are.
  const cacheable = !present(ctx.paths.journal) && !sessionActive(ctx.paths);
  const key = cacheable ? storeKey(ctx) : null;
  if (key !== null) {
    const cached = readSummary(path);
    if (cached?.key === key) return { rows: cached.rows.map(unpack), taskType: cached.taskType };
  }
  const snapshot = await readSettledStore(ctx);
  const { packed, taskType } = summarize(ctx, snapshot);
  // The key is taken again after reading: a file that changed meanwhile is simply not kept.
  if (key !== null && key === storeKey(ctx)) {
    writeStoreSummary(path, ctx.paths.internalDir, { key, rows: packed, taskType });
    keepOffsets(ctx, key, snapshot, { state: snapshot.state.doc.text, todo: snapshot.todo.source });
  }
  return { rows: packed.map(unpack), taskType };
}

function summarize(
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
