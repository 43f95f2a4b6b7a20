import { FileFormatError, lineColumnAt } from "../shared/index.js";
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
  eol: "\n" | "\r\n";
  /** A UTF-8 byte order mark the file started with, kept in front of the frontmatter. */
  bom: boolean;
  /** The frontmatter block, both `---` fences included; null when the file has none. */
  frontmatter: RawSegment | null;
  segments: TodoSegment[];
  /** The text as read ("" for a new document), to skip writing an unchanged file. */
  source: string;
}

export const ENTRY_HEADING = /^### (\d+)\.\s+(.*?)\s*$/;
const ANY_SECTION_HEADING = /^#{1,3} \S/;
const TOP_SECTION_HEADING = /^#{1,2}[ \t]+\S/;
/**
 * Sections whose `### N.` headings are task entries: `## Tasks` (the original's layout since February)
 * and the older `## High Priority` style. Curated sections such as `## Task Order` are never entries.
 */
const TASK_SECTION =
  /^#{1,2}[ \t]+(?:(?:active[ \t]+)?tasks|(?:critical|high|medium|low)[ \t]+priority)[ \t]*:?[ \t]*$/i;
const TASK_SECTION_ANYWHERE =
  /^#{1,2}[ \t]+(?:(?:active[ \t]+)?tasks|(?:critical|high|medium|low)[ \t]+priority)[ \t]*:?[ \t]*\r?$/im;
const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})/;
export const STATUS_LINE = /^- \*\*Status\*\*:\s*(\[[^\]]*\])/;
export const NEXT_NUMBER_LINE = /^next_project_number:\s*(\d+)\s*$/;
const FRONTMATTER_FENCE = /^---[ \t]*$/;

function lineAt(text: string, offset: number): number {
  return lineColumnAt(text, offset).line;
}

/** Start offsets and texts (terminator excluded) of the lines of `text` from `from` on. */
function* linesFrom(text: string, from: number): Generator<{ start: number; line: string }> {
  for (let start = from; start < text.length; ) {
    const nl = text.indexOf("\n", start);
    const end = nl === -1 ? text.length : nl;
    const line = text.slice(start, end > start && text.charCodeAt(end - 1) === 13 ? end - 1 : end);
    yield { start, line };
    start = nl === -1 ? text.length : nl + 1;
  }
}

/** The frontmatter block and where the body starts. */
function splitFrontmatter(path: string, text: string): { frontmatter: RawSegment | null; body: number } {
  const lines = linesFrom(text, 0);
  const first = lines.next();
  if (first.done || !FRONTMATTER_FENCE.test(first.value.line)) return { frontmatter: null, body: 0 };
  for (const { start, line } of lines) {
    if (!FRONTMATTER_FENCE.test(line)) continue;
    const nl = text.indexOf("\n", start);
    const end = nl === -1 ? text.length : nl + 1;
    return { frontmatter: new RawSegment({ text: text.slice(0, end) }), body: end };
  }
  throw new FileFormatError("TODO_PARSE", path, `${path}:1: frontmatter opened with "---" is never closed`, {
    hint: 'Add a closing "---" line after the frontmatter keys.',
  });
}

interface Cut {
  at: number;
  entry: { number: number; title: string } | null;
}

/**
 * Where segments start: an entry heading inside a tasks section starts an entry, and inside an entry
 * any H1-H3 heading ends it. Lines inside fenced code blocks are never headings. Without any tasks
 * section heading the whole file is one (a minimal TODO.md of bare entries).
 */
function segmentCuts(path: string, text: string, body: number): Cut[] {
  const cuts: Cut[] = [];
  const wholeFile = !TASK_SECTION_ANYWHERE.test(text.slice(body));
  let inTasks = wholeFile;
  let inEntry = false;
  let fence: string | null = null;
  for (const { start, line } of linesFrom(text, body)) {
    const c = line.charCodeAt(0);
    // Only lines that start with "#", "`", "~" or a space can change anything: skip the rest cheaply.
    if (c !== 35 && c !== 96 && c !== 126 && c !== 32) continue;
    const opening = FENCE_OPEN.exec(line)?.[1];
    if (fence !== null) {
      if (opening && opening[0] === fence[0] && opening.length >= fence.length && line.trim() === opening)
        fence = null;
      continue;
    }
    if (opening) {
      fence = opening;
      continue;
    }
    if (c !== 35) continue;
    if (!wholeFile && TOP_SECTION_HEADING.test(line)) inTasks = TASK_SECTION.test(line);
    const heading = inTasks ? ENTRY_HEADING.exec(line) : null;
    if (heading) {
      const number = Number(heading[1]);
      const title = heading[2] ?? "";
      if (title === "") {
        throw new FileFormatError(
          "TODO_PARSE",
          path,
          `${path}:${lineAt(text, start)}: task ${number} has an empty title`,
          { hint: `Write the title after "### ${number}. ".` },
        );
      }
      cuts.push({ at: start, entry: { number, title } });
      inEntry = true;
    } else if (inEntry && ANY_SECTION_HEADING.test(line)) {
      cuts.push({ at: start, entry: null });
      inEntry = false;
    }
  }
  return cuts;
}

export function parseTodo(path: string, input: string): TodoDocument {
  const bom = input.charCodeAt(0) === 0xfeff;
  const text = bom ? input.slice(1) : input;
  const firstNewline = text.indexOf("\n");
  const eol = firstNewline > 0 && text.charCodeAt(firstNewline - 1) === 13 ? "\r\n" : "\n";
  const { frontmatter, body } = splitFrontmatter(path, text);
  const segments: TodoSegment[] = [];
  const doc: TodoDocument = { path, eol, bom, frontmatter, segments, source: input };
  const cuts = segmentCuts(path, text, body);
  const first = cuts[0]?.at ?? text.length;
  if (first > body) segments.push(new RawSegment({ text: text.slice(body, first) }));
  const seen = new Map<number, number>();
  cuts.forEach((cut, i) => {
    const segmentText = text.slice(cut.at, cuts[i + 1]?.at ?? text.length);
    if (!cut.entry) {
      segments.push(new RawSegment({ text: segmentText }));
      return;
    }
    const { number, title } = cut.entry;
    const previous = seen.get(number);
    if (previous !== undefined) {
      throw new FileFormatError(
        "DUPLICATE_TASK",
        path,
        `${path}:${lineAt(text, cut.at)}: task ${number} appears twice (first at line ${lineAt(text, previous)})`,
        { hint: "Merge the two entries into one; nothing was written." },
      );
    }
    seen.set(number, cut.at);
    if (statusMarkerIn(segmentText) === undefined) {
      throw new FileFormatError(
        "TODO_PARSE",
        path,
        `${path}:${lineAt(text, cut.at)}: task ${number} has no status line`,
        {
          hint: 'Add a line like "- **Status**: [NOT STARTED]" under the heading; nothing was written.',
        },
      );
    }
    segments.push(new TodoEntry(number, title, { text: segmentText }, cut.at));
  });
  return doc;
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
  for (let at = text.indexOf("- **Status**:"); at !== -1; at = text.indexOf("- **Status**:", at + 1)) {
    if (at > 0 && text.charCodeAt(at - 1) !== 10) continue;
    const lineEnd = text.indexOf("\n", at);
    const marker = STATUS_LINE.exec(text.slice(at, lineEnd === -1 ? text.length : lineEnd))?.[1];
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
  };
}
