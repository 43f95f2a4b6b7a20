import { closeSync, mkdirSync, openSync, readFileSync, readSync, renameSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { writeFileNamed } from "../shared/atomic-write.js";
import { packageVersion } from "../shared/package.js";
import { present } from "../shared/present.js";
import type { SpecsPaths } from "./paths.js";
import type { TaskTypeConvention } from "./task-type.js";
import type { TaskView } from "./views.js";

/**
 * The store summary's file (`specs/.baton/cache/`): what it holds, its key, reading and writing it. Kept
 * free of the store's heavier code, so the fast read path (src/cli/fast-read.ts) can load it alone.
 */

/** One line of `task list`: what it prints, and filters on. */
export type TaskRow = Pick<TaskView, "number" | "status" | "language" | "title" | "todoStatus" | "irregular">;

/** Rows are kept as arrays: a tenth of the bytes of the full views, which `task list` never prints. */
export type PackedRow = [number, string, string, string, (string | null)?, string[]?];

export function pack(view: TaskView): PackedRow {
  const row: PackedRow = [view.number, view.status, view.language, view.title];
  if (view.todoStatus !== undefined || view.irregular) row.push(view.todoStatus ?? null);
  if (view.irregular) row.push(view.irregular);
  return row;
}

export function unpack(row: PackedRow): TaskRow {
  const out: TaskRow = { number: row[0], status: row[1], language: row[2], title: row[3] };
  if (row[4] != null) out.todoStatus = row[4];
  if (row[5]) out.irregular = row[5];
  return out;
}

export interface SummaryFile {
  key: string;
  rows: PackedRow[];
  taskType: TaskTypeConvention;
}

/** Bumped when what a summary holds changes shape. */
export const SUMMARY_FORMAT = 4;

function fileKey(path: string): string {
  try {
    const s = statSync(path, { bigint: true });
    return `${s.size}:${s.ino}:${s.mtimeNs}:${s.ctimeNs}`;
  } catch {
    return "absent";
  }
}

export function storeKey(ctx: {
  config: { taskTypeKey?: string | undefined; taskTypeField?: string | undefined };
  paths: Pick<SpecsPaths, "state" | "todo">;
}): string {
  const { config, paths } = ctx;
  const configured = `${config.taskTypeKey ?? ""}/${config.taskTypeField ?? ""}`;
  return `${SUMMARY_FORMAT}|${packageVersion()}|${configured}|${fileKey(paths.state)}|${fileKey(paths.todo)}`;
}

/**
 * The file is two lines: the head (key and convention, what `status` needs) and the rows (what `task list`
 * needs), so a status reads a few hundred bytes of a 10,000-task summary. A summary of another shape (an
 * older Baton's, a truncated file) is no summary: the files are read.
 */
export function readSummary(path: string): SummaryFile | null {
  try {
    const text = readFileSync(path, "utf8");
    const newline = text.indexOf("\n");
    const head = parseHead(text.slice(0, newline));
    const rows = head && (JSON.parse(text.slice(newline + 1)) as unknown);
    const ok =
      Array.isArray(rows) &&
      rows.every((r) => Array.isArray(r) && typeof r[0] === "number" && typeof r[3] === "string");
    return head && ok ? { ...head, rows: rows as PackedRow[] } : null;
  } catch {
    return null;
  }
}

/** Only the head: the key and the task-type convention. */
export function readSummaryHead(path: string): Omit<SummaryFile, "rows"> | null {
  let fd: number | undefined;
  try {
    fd = openSync(path, "r");
    const buffer = Buffer.alloc(4096);
    const read = readSync(fd, buffer, 0, buffer.length, 0);
    const text = buffer.subarray(0, read).toString("utf8");
    const newline = text.indexOf("\n");
    return newline === -1 ? null : parseHead(text.slice(0, newline));
  } catch {
    return null;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function parseHead(line: string): Omit<SummaryFile, "rows"> | null {
  try {
    const head = JSON.parse(line) as Partial<SummaryFile> | null;
    return typeof head?.key === "string" && typeof head.taskType?.key === "string"
      ? { key: head.key, taskType: head.taskType }
      : null;
  } catch {
    return null;
  }
}

/** The summary in its two lines. */
export function writeStoreSummary(path: string, internalDir: string, summary: SummaryFile): void {
  const { rows, ...head } = summary;
  writeText(path, internalDir, `${JSON.stringify(head)}\n${JSON.stringify(rows)}\n`);
}

/** Only where Baton already keeps its files: a read creates no folder of its own. */
export function writeSummary(path: string, internalDir: string, summary: object): void {
  writeText(path, internalDir, JSON.stringify(summary));
}

function writeText(path: string, internalDir: string, text: string): void {
  if (!present(internalDir)) return;
  try {
    mkdirSync(dirname(path), { recursive: true });
    const temp = `${path}.${process.pid}.tmp`;
    writeFileNamed(temp, text);
    renameSync(temp, path);
  } catch {
    // A read-only store still lists; the next read parses the files again.
  }
}
