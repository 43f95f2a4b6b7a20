import { storeInternalPaths } from "../shared/baton-paths.js";
import { present } from "../shared/present.js";
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
  // Byte offsets, so `task show` reads two small ranges instead of decoding 10 MB.
  const state: OffsetsFile["state"] = {};
  let char = 0;
  let byte = 0;
  snapshot.state.tasks.forEach((task, i) => {
    const [start, end] = spans[i]!;
    byte += Buffer.byteLength(texts.state.slice(char, start));
    const length = Buffer.byteLength(texts.state.slice(start, end));
    state[task.project_number] = [byte, byte + length];
    byte += length;
    char = end;
  });
  const file: OffsetsFile = { key, unit: "bytes", state, todo: todoOffsets(snapshot.todo) };
  writeSummary(storeInternalPaths(ctx.paths.internalDir).offsetsCache, ctx.paths.internalDir, file);
}

/** After a full read by `task show`: the offsets for the next one, when the files are still those read. */
export function rememberOffsets(ctx: StoreContext, snapshot: Snapshot): void {
  if (present(ctx.paths.journal) || sessionActive(ctx.paths)) return;
  keepOffsets(ctx, storeKey(ctx), snapshot, { state: snapshot.state.doc.text, todo: snapshot.todo.source });
}

/** Each entry's byte span in the file: the byte order mark and the segments' rendered bytes, added up. */
function todoOffsets(doc: TodoDocument): OffsetsFile["todo"] {
  const out: OffsetsFile["todo"] = {};
  let at = (doc.bom ? 3 : 0) + (doc.frontmatter ? Buffer.byteLength(doc.frontmatter.render(doc.eol)) : 0);
  for (const segment of doc.segments) {
    const length = Buffer.byteLength(segment.render(doc.eol));
    if (segment.kind === "entry") out[segment.number] = [at, at + length];
    at += length;
  }
  return out;
}
