import { existsSync } from "node:fs";
import { storeInternalPaths } from "../shared/baton-paths.js";
import { activeEntryOffsets } from "./json-offsets.js";
import { sessionActive } from "./open-checkpoint.js";
import type { Snapshot, StoreContext } from "./store-context.js";
import { storeKey, writeSummary } from "./summary-file.js";
import type { OffsetsFile } from "./task-detail.js";
import type { TodoDocument } from "./todo-document.js";

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
