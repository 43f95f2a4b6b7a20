import { storeInternalPaths } from "../shared/baton-paths.js";
import { present } from "../shared/present.js";
import { keepOffsets } from "./entry-offsets.js";
import { sessionActive } from "./open-checkpoint.js";
import { readSettledStore, requireStore, type StoreContext } from "./store.js";
import { readSummary, storeKey, type TaskRow, unpack, writeStoreSummary } from "./summary-file.js";
import { summarize } from "./summary-write.js";
import type { TaskTypeConvention } from "./task-type.js";

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
