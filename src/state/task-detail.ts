import { closeSync, openSync, readFileSync, readSync } from "node:fs";
import { storeInternalPaths } from "../shared/baton-paths.js";
import { present } from "../shared/present.js";
import type { SpecsPaths } from "./paths.js";
import type { TaskEntry } from "./store-schema.js";
import { storeKey } from "./summary-file.js";
import { entries, parseTodo, type TodoEntry } from "./todo-document.js";

/**
 * Where each task's entry is, in the texts the summary was made from ([start, end) per task number, in
 * state.json and in TODO.md without its byte order mark). Kept only for a store with no irregular entry.
 */
export interface OffsetsFile {
  key: string;
  /** Byte offsets in the files (an older summary's character offsets are not used). */
  unit: "bytes";
  state: Record<string, [number, number]>;
  todo: Record<string, [number, number]>;
}

type KeyedStore = Parameters<typeof storeKey>[0] & {
  paths: Pick<SpecsPaths, "state" | "todo" | "internalDir" | "journal">;
};

/**
 * One task's state.json entry and TODO.md entry, read from their offsets while the files are those the
 * offsets were taken from; null whenever that cannot be shown (then the caller reads the whole store).
 * Each slice is checked to be the task's own entry before it is used. The caller has made sure no
 * session's checkpoint is open (a session's reads settle the store first).
 */
export function readTaskDetail(
  ctx: KeyedStore,
  number: number,
): { task: TaskEntry; entry: TodoEntry | undefined } | null {
  if (present(ctx.paths.journal)) return null;
  let file: OffsetsFile;
  try {
    file = JSON.parse(
      readFileSync(storeInternalPaths(ctx.paths.internalDir).offsetsCache, "utf8"),
    ) as OffsetsFile;
  } catch {
    return null;
  }
  if (file?.key !== storeKey(ctx) || file.unit !== "bytes") return null;
  const span = file.state?.[number];
  if (!Array.isArray(span)) return null;
  try {
    const task = JSON.parse(readRange(ctx.paths.state, span)) as TaskEntry;
    if (task?.project_number !== number) return null;
    const todoSpan = file.todo?.[number];
    if (!Array.isArray(todoSpan)) return { task, entry: undefined };
    const text = readRange(ctx.paths.todo, todoSpan);
    if (!text.startsWith(`### ${number}.`)) return null;
    const entry = entries(parseTodo(ctx.paths.todo, text)).next().value;
    return entry?.number === number ? { task, entry } : null;
  } catch {
    return null;
  }
}

/** The bytes [start, end) of a file as text. */
function readRange(path: string, [start, end]: [number, number]): string {
  const fd = openSync(path, "r");
  try {
    const buffer = Buffer.alloc(Math.max(0, end - start));
    const read = readSync(fd, buffer, 0, buffer.length, start);
    return buffer.subarray(0, read).toString("utf8");
  } finally {
    closeSync(fd);
  }
}
