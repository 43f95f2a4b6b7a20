import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { storeInternalPaths } from "../shared/baton-paths.js";
import { packageVersion } from "../shared/package.js";
import { keepOffsets } from "./entry-offsets.js";
import { sessionActive } from "./open-checkpoint.js";
import { readSettledStore, requireStore, type Snapshot, type StoreContext } from "./store.js";
import { learnTaskType, type TaskTypeConvention } from "./task-type.js";
import { type TaskView, taskViews } from "./views.js";

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

/** One line of `task list`: what it prints, and filters on. */
export type TaskRow = Pick<TaskView, "number" | "status" | "language" | "title" | "todoStatus" | "irregular">;

/** Rows are kept as arrays: a tenth of the bytes of the full views, which `task list` never prints. */
type PackedRow = [number, string, string, string, (string | null)?, string[]?];

function pack(view: TaskView): PackedRow {
  const row: PackedRow = [view.number, view.status, view.language, view.title];
  if (view.todoStatus !== undefined || view.irregular) row.push(view.todoStatus ?? null);
  if (view.irregular) row.push(view.irregular);
  return row;
}

function unpack(row: PackedRow): TaskRow {
  const out: TaskRow = { number: row[0], status: row[1], language: row[2], title: row[3] };
  if (row[4] != null) out.todoStatus = row[4];
  if (row[5]) out.irregular = row[5];
  return out;
}

interface SummaryFile {
  key: string;
  rows: PackedRow[];
  taskType: TaskTypeConvention;
}

/** Bumped when what a summary holds changes shape. */
const SUMMARY_FORMAT = 3;

function fileKey(path: string): string {
  try {
    const s = statSync(path, { bigint: true });
    return `${s.size}:${s.ino}:${s.mtimeNs}:${s.ctimeNs}`;
  } catch {
    return "absent";
  }
}

export function storeKey(ctx: StoreContext): string {
  const { config, paths } = ctx;
  const configured = `${config.taskTypeKey ?? ""}/${config.taskTypeField ?? ""}`;
  return `${SUMMARY_FORMAT}|${packageVersion()}|${configured}|${fileKey(paths.state)}|${fileKey(paths.todo)}`;
}

/** The kept summary when it still describes the files; null otherwise. Reads only, never settles. */
export function peekStoreSummary(ctx: StoreContext): StoreSummary | null {
  if (existsSync(ctx.paths.journal) || sessionActive(ctx.paths)) return null;
  const cached = readSummary(storeInternalPaths(ctx.paths.internalDir).summaryCache);
  return cached?.key === storeKey(ctx) ? { rows: cached.rows.map(unpack), taskType: cached.taskType } : null;
}

export async function readStoreSummary(ctx: StoreContext): Promise<StoreSummary> {
  requireStore(ctx);
  const path = storeInternalPaths(ctx.paths.internalDir).summaryCache;
  // A write in flight or a session's checkpoint: the settled read decides what the files are.
  const cacheable = !existsSync(ctx.paths.journal) && !sessionActive(ctx.paths);
  const key = cacheable ? storeKey(ctx) : null;
  if (key !== null) {
    const cached = readSummary(path);
    if (cached?.key === key) return { rows: cached.rows.map(unpack), taskType: cached.taskType };
  }
  const snapshot = await readSettledStore(ctx);
  const { packed, taskType } = summarize(ctx, snapshot);
  // The key is taken again after reading: a file that changed meanwhile is simply not kept.
  if (key !== null && key === storeKey(ctx)) {
    writeSummary(path, ctx.paths.internalDir, { key, rows: packed, taskType });
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
  if (existsSync(ctx.paths.journal) || !existsSync(ctx.paths.internalDir)) return;
  try {
    const key = storeKey(ctx);
    const { packed, taskType } = summarize(ctx, written);
    writeSummary(storeInternalPaths(ctx.paths.internalDir).summaryCache, ctx.paths.internalDir, {
      key,
      rows: packed,
      taskType,
    });
    keepOffsets(ctx, key, written, texts);
  } catch {
    // A summary is an optimisation: the next read builds it.
  }
}

/** A summary of another shape (an older Baton's, a truncated file) is no summary: the files are read. */
function readSummary(path: string): SummaryFile | null {
  try {
    const value = JSON.parse(readFileSync(path, "utf8")) as Partial<SummaryFile> | null;
    const ok =
      typeof value?.key === "string" &&
      Array.isArray(value.rows) &&
      value.rows.every((r) => Array.isArray(r) && typeof r[0] === "number" && typeof r[3] === "string") &&
      typeof value.taskType?.key === "string";
    return ok ? (value as SummaryFile) : null;
  } catch {
    return null;
  }
}

/** Only where Baton already keeps its files: a read creates no folder of its own. */
export function writeSummary(path: string, internalDir: string, summary: object): void {
  if (!existsSync(internalDir)) return;
  try {
    mkdirSync(dirname(path), { recursive: true });
    const temp = `${path}.${process.pid}.tmp`;
    writeFileSync(temp, JSON.stringify(summary));
    renameSync(temp, path);
  } catch {
    // A read-only store still lists; the next read parses the files again.
  }
}
