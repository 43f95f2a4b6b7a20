import { relative } from "node:path";
import { lineIndex } from "../shared/index.js";
import type { Finding } from "./doctor-finding.js";
import type { Irregularity } from "./irregularity.js";
import type { LoadedState } from "./load-store.js";
import type { StoreContext } from "./store-context.js";
import { entries, FIELD_PREFIX, type TodoDocument, type TodoEntry } from "./todo-document.js";

/** A field line written without the `- ` bullet (` **Status**: …`): read and kept, reported as a style. */
const UNBULLETED_FIELD = new RegExp(`${FIELD_PREFIX}[A-Z][^*]*(?:\\*\\*:|:\\*\\*)`);

/**
 * Field lines of the entry's field block (the lines right under the heading, up to the first other line)
 * that lack the bullet; `**Description**:` and other paragraphs further down are prose, not fields.
 */
export function unbulletedFieldLines(entry: TodoEntry): number[] {
  const lines: number[] = [];
  for (let i = 1; i < entry.lines.length; i++) {
    const line = entry.lines[i]!;
    const match = UNBULLETED_FIELD.exec(line);
    if (!match) {
      if (/^\s+\S/.test(line) || (i === 1 && line.trim() === "")) continue;
      break;
    }
    if (/^\*\*Description/.test(line.trim())) break;
    if (!/^- $/.test(match[1] ?? "")) lines.push(i);
  }
  return lines;
}

function fieldStyleIrregularities(todo: TodoDocument): Irregularity[] {
  const found: Irregularity[] = [];
  const text = todo.bom ? todo.source.slice(1) : todo.source;
  // Offsets are only known for entries as read; an entry's line is its heading's line plus the index.
  const lineOfOffset = lineIndex(text);
  for (const entry of entries(todo)) {
    if (!/\n[ \t]*\*\*|\n[*+][ \t]+\*\*/.test(entry.render("\n"))) continue;
    const odd = unbulletedFieldLines(entry);
    if (odd.length === 0 || entry.sourceOffset < 0) continue;
    const heading = lineOfOffset(entry.sourceOffset);
    found.push({
      code: "FIELD_STYLE",
      file: todo.path,
      line: heading + odd[0]!,
      task: entry.number,
      message: `task ${entry.number}: ${odd.length} field line${odd.length === 1 ? "" : "s"} written without the "- " bullet (Baton reads and keeps them)`,
      fix: `start ${odd.length === 1 ? "that line" : "those lines"} with "- " (as "- **Status**: …")`,
      fixable: true,
      writable: true,
    });
  }
  return found;
}

/** Every irregularity of both files as a doctor finding, with its file and line. */
export function irregularFindings(
  ctx: StoreContext,
  state: LoadedState | null,
  todo: TodoDocument | null,
): Finding[] {
  const all = [
    ...(state?.irregular ?? []),
    ...(todo?.irregular ?? []),
    ...(todo ? fieldStyleIrregularities(todo) : []),
  ];
  return all.map((irregularity) => {
    const where = `${relative(ctx.config.root, irregularity.file)}${irregularity.line ? `:${irregularity.line}` : ""}`;
    const finding: Finding = {
      code: "IRREGULAR_ENTRY",
      severity: irregularity.writable ? "warning" : "error",
      message: `${where}: ${irregularity.message}${irregularity.writable ? "" : "; Baton will not change this entry until it is fixed"}`,
      fix: irregularity.fix,
      fixable: irregularity.fixable,
      path: irregularity.file,
    };
    if (irregularity.line) finding.line = irregularity.line;
    if (irregularity.task !== undefined) finding.task = irregularity.task;
    return finding;
  });
}

export function irregularNumbers(state: LoadedState | null, todo: TodoDocument | null): Set<number> {
  const numbers = new Set<number>();
  for (const irregularity of [...(state?.irregular ?? []), ...(todo?.irregular ?? [])]) {
    if (irregularity.task !== undefined && !irregularity.writable) numbers.add(irregularity.task);
  }
  return numbers;
}
