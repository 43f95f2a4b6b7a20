import { type LineEnding, lineIndex } from "../shared/lines.js";
import type { Irregularity } from "./irregularity.js";
import { frontmatterEnd, STATUS_LINE, segmentCuts } from "./todo-segments.js";

export { ENTRY_HEADING, FIELD_PREFIX, NEXT_NUMBER_LINE, STATUS_LINE } from "./todo-segments.js";

import { markerToStatus } from "./task-status.js";

/**
 * TODO.md as a sequence of segments: untouched raw text and task entries. Each segment holds the exact
 * bytes it was read from, line terminators included, so a file is its segments concatenated and an
 * edit touches only the entry it concerns (or the frontmatter's `next_project_number` line). A segment
 * is split into lines only when something reads or edits them, so reading a 10,000-entry file costs one
 * scan of its lines.
 */
abstract class Segment {
  private text: string | undefined;
  private split: string[] | undefined;
  /** The source lines joined by "\n" when first split: render keeps the source bytes while they match. */
  private splitKey: string | undefined;
  /** Whether the segment's last line ends with a line terminator. */
  terminated: boolean;

  constructor(source: { text: string } | { lines: string[]; terminated?: boolean }) {
    if ("text" in source) {
      this.text = source.text;
      this.terminated = source.text.endsWith("\n");
    } else {
      this.split = source.lines;
      this.terminated = source.terminated ?? true;
    }
  }

  get lines(): string[] {
    if (!this.split) {
      const text = this.text!;
      const body = this.terminated ? text.slice(0, text.endsWith("\r\n") ? -2 : -1) : text;
      this.split = body.split(/\r?\n/);
      this.splitKey = this.split.join("\n");
    }
    return this.split;
  }

  set lines(lines: string[]) {
    this.split = lines;
    this.text = undefined;
    this.splitKey = undefined;
  }

  /** The segment's text: the source bytes when nothing changed, else its lines joined by `eol`. */
  render(eol: string): string {
    if (this.text !== undefined && (!this.split || this.split.join("\n") === this.splitKey)) return this.text;
    return this.split!.join(eol) + (this.terminated ? eol : "");
  }
}

export class RawSegment extends Segment {
  readonly kind = "raw" as const;
}

export class TodoEntry extends Segment {
  readonly kind = "entry" as const;
  constructor(
    readonly number: number,
    public title: string,
    source: { text: string } | { lines: string[]; terminated?: boolean },
    /** Offset of the heading in the file as read (for messages); -1 for new entries. */
    readonly sourceOffset = -1,
  ) {
    super(source);
  }
}

export type TodoSegment = TodoEntry | RawSegment;

export interface TodoDocument {
  path: string;
  /** The line ending Baton writes: the file's first one (CRLF files stay CRLF). */
  eol: LineEnding;
  /** A UTF-8 byte order mark the file started with, kept in front of the frontmatter. */
  bom: boolean;
  /** The frontmatter block, both `---` fences included; null when the file has none. */
  frontmatter: RawSegment | null;
  segments: TodoSegment[];
  /** The text as read ("" for a new document), to skip writing an unchanged file. */
  source: string;
  /** What Baton read around (an entry without a status line, a number twice); empty for a regular file. */
  irregular: Irregularity[];
  /** Irregular entries as read: a write that would change one is refused (`todoGuardsHold`). */
  guards: Map<TodoEntry, { snapshot: string; irregularity: Irregularity }>;
}

export function parseTodo(path: string, input: string): TodoDocument {
  const bom = input.charCodeAt(0) === 0xfeff;
  const text = bom ? input.slice(1) : input;
  const firstNewline = text.indexOf("\n");
  const eol = firstNewline > 0 && text.charCodeAt(firstNewline - 1) === 13 ? "\r\n" : "\n";
  const irregular: Irregularity[] = [];
  const body = frontmatterEnd(path, text, irregular);
  const frontmatter = body > 0 ? new RawSegment({ text: text.slice(0, body) }) : null;
  const segments: TodoSegment[] = [];
  const doc: TodoDocument = {
    path,
    eol,
    bom,
    frontmatter,
    segments,
    source: input,
    irregular,
    guards: new Map(),
  };
  const cuts = segmentCuts(text, body);
  const first = cuts[0]?.at ?? text.length;
  if (first > body) segments.push(new RawSegment({ text: text.slice(body, first) }));
  const seen = new Map<number, TodoEntry>();
  const lineOf = lineIndex(text);
  cuts.forEach((cut, i) => {
    const segmentText = text.slice(cut.at, cuts[i + 1]?.at ?? text.length);
    segments.push(
      cut.entry
        ? readEntry(doc, lineOf, cut.at, cut.entry, segmentText, seen)
        : new RawSegment({ text: segmentText }),
    );
  });
  return doc;
}

/** One entry: read, and guarded when irregular; a number's second entry stays in the file as text. */
function readEntry(
  doc: TodoDocument,
  lineOf: (offset: number) => number,
  at: number,
  { number, title }: { number: number; title: string },
  segmentText: string,
  seen: Map<number, TodoEntry>,
): TodoSegment {
  // Counting lines costs a scan of the text before the entry: only an irregular entry pays for it.
  const line = () => lineOf(at);
  const previous = seen.get(number);
  if (previous !== undefined) {
    const found = entryIrregularity(doc, number, line(), {
      code: "ENTRY_TWICE",
      message: `task ${number} has a second entry here (the first is at line ${lineOf(previous.sourceOffset)}); Baton reads the first`,
      fix: `merge the two entries for task ${number} into one`,
      fixable: false,
    });
    guardEntry(doc, previous, found);
    return new RawSegment({ text: segmentText });
  }
  const entry = new TodoEntry(number, title, { text: segmentText }, at);
  seen.set(number, entry);
  if (title === "") {
    const found = entryIrregularity(doc, number, line(), {
      code: "EMPTY_TITLE",
      message: `task ${number} has no title`,
      fix: `write the title after "### ${number}. "`,
      fixable: false,
    });
    guardEntry(doc, entry, found);
  }
  if (statusMarkerIn(segmentText) === undefined) {
    const found = entryIrregularity(doc, number, line(), {
      code: "NO_STATUS_LINE",
      message: `task ${number} has no status line (such as "- **Status**: [NOT STARTED]")`,
      fix: `add "- **Status**: [MARKER]" under the heading, the marker of task ${number}'s status in state.json`,
      fixable: true,
    });
    guardEntry(doc, entry, found);
  }
  return entry;
}

export function renderTodo(doc: TodoDocument): string {
  // Pieces joined once at the end: asking a growing concatenation how it ends would flatten it each time.
  const pieces: string[] = doc.bom ? ["\uFEFF"] : [];
  const parts = doc.frontmatter ? [doc.frontmatter, ...doc.segments] : doc.segments;
  let open = false;
  for (const segment of parts) {
    const text = segment.render(doc.eol);
    // A segment that was the file's unterminated last line gets a line end once something follows it.
    if (open && text !== "") pieces.push(doc.eol);
    if (text !== "") {
      pieces.push(text);
      open = !text.endsWith("\n");
    }
  }
  return pieces.join("");
}

export function* entries(doc: TodoDocument): Generator<TodoEntry> {
  for (const segment of doc.segments) if (segment.kind === "entry") yield segment;
}

export function findEntry(doc: TodoDocument, number: number): TodoEntry | undefined {
  for (const e of entries(doc)) if (e.number === number) return e;
  return undefined;
}

/** Index of the first line of the entry's field block matching `pattern`, or -1. */
export function findFieldLine(entry: TodoEntry, pattern: RegExp): number {
  for (let i = 1; i < entry.lines.length; i++) if (pattern.test(entry.lines[i]!)) return i;
  return -1;
}

/** The `[MARKER]` of the entry's status line; indexOf is far faster than a multiline regex scan. */
function statusMarkerIn(text: string): string | undefined {
  for (let at = text.indexOf("**Status"); at !== -1; at = text.indexOf("**Status", at + 1)) {
    const lineStart = text.lastIndexOf("\n", at) + 1;
    const lineEnd = text.indexOf("\n", at);
    const marker = STATUS_LINE.exec(text.slice(lineStart, lineEnd === -1 ? text.length : lineEnd))?.[2];
    if (marker !== undefined) return marker;
  }
  return undefined;
}

export function entryStatus(entry: TodoEntry): string | undefined {
  const marker = statusMarkerIn(entry.render("\n"));
  return marker === undefined ? undefined : markerToStatus(marker);
}

export function emptyTodo(path: string, nextNumber: number): TodoDocument {
  return {
    path,
    eol: "\n",
    bom: false,
    frontmatter: new RawSegment({ lines: ["---", `next_project_number: ${nextNumber}`, "---"] }),
    segments: [new RawSegment({ lines: ["", "# TODO", "", "## Tasks", ""] })],
    source: "",
    irregular: [],
    guards: new Map(),
  };
}

/** An irregular entry found while parsing: recorded, and guarded so a write cannot change it unseen. */
export function entryIrregularity(
  doc: TodoDocument,
  task: number,
  line: number,
  fields: Pick<Irregularity, "code" | "message" | "fix" | "fixable">,
): Irregularity {
  const found: Irregularity = { file: doc.path, line, task, writable: false, ...fields };
  doc.irregular.push(found);
  return found;
}

export function guardEntry(doc: TodoDocument, entry: TodoEntry, irregularity: Irregularity): void {
  if (!doc.guards.has(entry)) doc.guards.set(entry, { snapshot: entry.render("\n"), irregularity });
}
