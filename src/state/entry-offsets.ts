import { existsSync, readFileSync } from "node:fs";
import { storeInternalPaths } from "../shared/baton-paths.js";
import { activeEntryOffsets } from "./json-offsets.js";
import { sessionActive } from "./open-checkpoint.js";
import type { Snapshot, StoreContext } from "./store-context.js";
import type { TaskEntry } from "./store-schema.js";
import { storeKey, writeSummary } from "./store-summary.js";
import { parseTodo, type TodoDocument, type TodoEntry } from "./todo-document.js";

/**
 * Where each task's entry is, in the texts the summary was made from ([start, end) per task number, in
 * state.json and in TODO.md without its byte order mark). Kept only for a store with no irregular entry.
 */
interface OffsetsFile {
  key: string;
  state: Record<string, [number, number]>;
  todo: Record<string, [number, number]>;
}

export function keepOffsets(
  ctx: StoreContext,
  key: string,
  snapshot: Snapshot,
  texts: { state: string; todo: string },
): void {
  if (snapshot.state.irregular.length > 0 || snapshot.todo.irregular.length > 0) return;
  const spans = activeEntryOffsets(texts.state);
  if (!spans || spans.length !== snapshot.state.tasks.length) return;
  const state: OffsetsFile["state"] = {};
  snapshot.state.tasks.forEach((task, i) => {
    state[task.project_number] = spans[i]!;
  });
  const file: OffsetsFile = { key, state, todo: todoOffsets(snapshot.todo) };
  writeSummary(storeInternalPaths(ctx.paths.internalDir).offsetsCache, ctx.paths.internalDir, file);
}

/** After a full read by `task show`: the offsets for the next one, when the files are still those read. */
export function rememberOffsets(ctx: StoreContext, snapshot: Snapshot): void {
  if (existsSync(ctx.paths.journal) || sessionActive(ctx.paths)) return;
  keepOffsets(ctx, storeKey(ctx), snapshot, { state: snapshot.state.doc.text, todo: snapshot.todo.source });
}

/** Each entry's span in the rendered text: the segments' rendered lengths, added up. */
function todoOffsets(doc: TodoDocument): OffsetsFile["todo"] {
  const out: OffsetsFile["todo"] = {};
  let at = doc.frontmatter ? doc.frontmatter.render(doc.eol).length : 0;
  for (const segment of doc.segments) {
    const length = segment.render(doc.eol).length;
    if (segment.kind === "entry") out[segment.number] = [at, at + length];
    at += length;
  }
  return out;
}

/**
 * One task's state.json entry and TODO.md entry, read from their offsets while the files are those the
 * offsets were taken from; null whenever that cannot be shown (then the caller reads the whole store).
 * Each slice is checked to be the task's own entry before it is used.
 */
export function readTaskDetail(
  ctx: StoreContext,
  number: number,
): { task: TaskEntry; entry: TodoEntry | undefined } | null {
  if (existsSync(ctx.paths.journal) || sessionActive(ctx.paths)) return null;
  let file: OffsetsFile;
  try {
    file = JSON.parse(
      readFileSync(storeInternalPaths(ctx.paths.internalDir).offsetsCache, "utf8"),
    ) as OffsetsFile;
  } catch {
    return null;
  }
  if (file?.key !== storeKey(ctx)) return null;
  const span = file.state?.[number];
  if (!Array.isArray(span)) return null;
  try {
    const task = JSON.parse(readFileSync(ctx.paths.state, "utf8").slice(span[0], span[1])) as TaskEntry;
    if (task?.project_number !== number) return null;
    const todoSpan = file.todo?.[number];
    if (!Array.isArray(todoSpan)) return { task, entry: undefined };
    const text = readFileSync(ctx.paths.todo, "utf8")
      .replace(/^\uFEFF/, "")
      .slice(todoSpan[0], todoSpan[1]);
    if (!text.startsWith(`### ${number}.`)) return null;
    const entry = [...entriesOf(parseTodo(ctx.paths.todo, text))][0];
    return entry?.number === number ? { task, entry } : null;
  } catch {
    return null;
  }
}

function* entriesOf(doc: TodoDocument): Generator<TodoEntry> {
  for (const s of doc.segments) if (s.kind === "entry") yield s;
}
