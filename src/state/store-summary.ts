import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { storeInternalPaths } from "../shared/baton-paths.js";
import { packageVersion } from "../shared/package.js";
import { sessionActive } from "./open-checkpoint.js";
import { readSettledStore, requireStore, type StoreContext } from "./store.js";
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
const SUMMARY_FORMAT = 2;

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
  const packed = taskViews(snapshot).map(pack);
  const taskType = learnTaskType(snapshot.state.tasks, snapshot.todo, {
    key: ctx.config.taskTypeKey,
    field: ctx.config.taskTypeField,
  });
  // The key is taken again after reading: a file that changed meanwhile is simply not kept.
  if (key !== null && key === storeKey(ctx))
    writeSummary(path, ctx.paths.internalDir, { key, rows: packed, taskType });
  return { rows: packed.map(unpack), taskType };
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
function writeSummary(path: string, internalDir: string, summary: SummaryFile): void {
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
