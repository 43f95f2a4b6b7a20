import { FileFormatError, lineColumnAt } from "../shared/index.js";
import { markerToStatus } from "./status.js";

/**
 * TODO.md as a sequence of segments: untouched raw lines and task entries. Edits touch only the
 * entry they concern (or the frontmatter's `next_project_number` line); everything else — curated
 * "Task Order" sections, comments, paragraphs — is kept as the exact text it was read from. A segment
 * keeps its source text and is split into lines only when something edits it, so reading a
 * 10,000-entry file costs one scan of its heading lines.
 */
abstract class Segment {
  private text: string | undefined;
  private split: string[] | undefined;

  constructor(source: { text: string } | { lines: string[] }) {
    if ("text" in source) this.text = source.text;
    else this.split = source.lines;
  }

  get lines(): string[] {
    if (!this.split) {
      this.split = this.text!.split(/\r?\n/);
      this.text = undefined;
    }
    return this.split;
  }

  set lines(lines: string[]) {
    this.split = lines;
    this.text = undefined;
  }

  /** The segment's text, its lines joined by `eol` (source text as read when never edited). */
  render(eol: string): string {
    return this.split ? this.split.join(eol) : this.text!;
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
    source: { text: string } | { lines: string[] },
    /** Offset of the heading in the file as read (for messages); -1 for new entries. */
    readonly sourceOffset = -1,
  ) {
    super(source);
  }
}

export type TodoSegment = TodoEntry | RawSegment;

export interface TodoDocument {
  path: string;
  eol: "\n" | "\r\n";
  /** Frontmatter lines including both `---` fences; empty when the file has none. */
  frontmatter: string[];
  segments: TodoSegment[];
  /** Whether the file ended with a newline. */
  finalNewline: boolean;
  /** The text as read ("" for a new document), to skip writing an unchanged file. */
  source: string;
}

export const ENTRY_HEADING = /^### (\d+)\.\s+(.*?)\s*$/;
const ANY_SECTION_HEADING = /^#{1,3} \S/;
export const STATUS_LINE = /^- \*\*Status\*\*:\s*(\[[^\]]*\])/;
const NEXT_NUMBER_LINE = /^next_project_number:\s*(\d+)\s*$/;

function lineAt(text: string, offset: number): number {
  return lineColumnAt(text, offset).line;
}

/** Splits off the frontmatter; returns its lines and where the body starts (null: no body lines). */
function splitFrontmatter(
  path: string,
  body: string,
  eol: string,
): { frontmatter: string[]; rest: number | null } {
  if (body !== "---" && !body.startsWith(`---${eol}`))
    return { frontmatter: [], rest: body === "" ? null : 0 };
  let close = -1;
  if (body.length > 3) {
    const inner = body.indexOf(`${eol}---${eol}`, 3 - eol.length);
    if (inner !== -1) close = inner + eol.length;
    else if (body.endsWith(`${eol}---`) && body.length > 3 + eol.length) close = body.length - 3;
  }
  if (close === -1) {
    throw new FileFormatError(
      "TODO_PARSE",
      path,
      `${path}:1: frontmatter opened with "---" is never closed`,
      {
        hint: 'Add a closing "---" line after the frontmatter keys.',
      },
    );
  }
  const end = close + 3;
  return { frontmatter: body.slice(0, end).split(eol), rest: end === body.length ? null : end + eol.length };
}

export function parseTodo(path: string, text: string): TodoDocument {
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const finalNewline = text.endsWith("\n");
  const body = finalNewline ? text.slice(0, -eol.length) : text;
  const { frontmatter, rest } = splitFrontmatter(path, body, eol);
  const segments: TodoSegment[] = [];
  const doc: TodoDocument = { path, eol, frontmatter, segments, finalNewline, source: text };
  if (rest === null) return doc;

  // Segment boundaries are heading lines: an entry heading always starts an entry, and inside an
  // entry any H1-H3 heading ends it. Only lines starting with "#" need a regex.
  const cuts: Array<{ at: number; entry: { number: number; title: string } | null }> = [];
  let inEntry = false;
  for (let at = body.charCodeAt(rest) === 35 ? rest : body.indexOf(`${eol}#`, rest); at !== -1; ) {
    const lineStart = body.charCodeAt(at) === 35 ? at : at + eol.length;
    const lineEnd = body.indexOf(eol, lineStart);
    const line = body.slice(lineStart, lineEnd === -1 ? body.length : lineEnd);
    const heading = ENTRY_HEADING.exec(line);
    if (heading) {
      const number = Number(heading[1]);
      const title = heading[2] ?? "";
      if (title === "") {
        throw new FileFormatError(
          "TODO_PARSE",
          path,
          `${path}:${lineAt(text, lineStart)}: task ${number} has an empty title`,
          {
            hint: `Write the title after "### ${number}. ".`,
          },
        );
      }
      cuts.push({ at: lineStart, entry: { number, title } });
      inEntry = true;
    } else if (inEntry && ANY_SECTION_HEADING.test(line)) {
      cuts.push({ at: lineStart, entry: null });
      inEntry = false;
    }
    at = lineEnd === -1 ? -1 : body.indexOf(`${eol}#`, lineEnd);
  }
  const first = cuts[0]?.at ?? body.length + eol.length;
  if (first > rest) segments.push(new RawSegment({ text: body.slice(rest, first - eol.length) }));
  const seen = new Map<number, number>();
  cuts.forEach((cut, i) => {
    const end = i + 1 < cuts.length ? cuts[i + 1]!.at - eol.length : body.length;
    const segmentText = body.slice(cut.at, end);
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
  const parts: string[] = doc.frontmatter.length > 0 ? [doc.frontmatter.join(doc.eol)] : [];
  for (const segment of doc.segments) parts.push(segment.render(doc.eol));
  return parts.join(doc.eol) + (doc.finalNewline ? doc.eol : "");
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

export function frontmatterNextNumber(doc: TodoDocument): number | undefined {
  for (const line of doc.frontmatter) {
    const match = NEXT_NUMBER_LINE.exec(line);
    if (match) return Number(match[1]);
  }
  return undefined;
}

/** Rewrites only the `next_project_number:` line, as the original's sed did; adds it if absent. */
export function setFrontmatterNextNumber(doc: TodoDocument, next: number): void {
  const i = doc.frontmatter.findIndex((line) => NEXT_NUMBER_LINE.test(line));
  if (i !== -1) {
    doc.frontmatter[i] = `next_project_number: ${next}`;
    return;
  }
  if (doc.frontmatter.length === 0) doc.frontmatter.push("---", `next_project_number: ${next}`, "---");
  else doc.frontmatter.splice(1, 0, `next_project_number: ${next}`);
}

export function emptyTodo(path: string, nextNumber: number): TodoDocument {
  return {
    path,
    eol: "\n",
    frontmatter: ["---", `next_project_number: ${nextNumber}`, "---"],
    segments: [new RawSegment({ lines: ["", "# TODO", "", "## Tasks", ""] })],
    finalNewline: true,
    source: "",
  };
}
