import { FileFormatError } from "../shared/errors.js";
import { markerToStatus } from "./status.js";

/**
 * TODO.md as a sequence of segments: untouched raw lines and task entries. Edits touch only the
 * entry they concern (or the frontmatter's `next_project_number` line); everything else — curated
 * "Task Order" sections, comments, paragraphs — is kept as the exact lines it was read from.
 */
export interface TodoEntry {
  kind: "entry";
  number: number;
  title: string;
  /** Lines of the entry, heading first, through its trailing separator and blank lines. */
  lines: string[];
  /** 1-based line of the heading in the file as read (for messages); 0 for new entries. */
  sourceLine: number;
}

export interface RawSegment {
  kind: "raw";
  lines: string[];
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

export function parseTodo(path: string, text: string): TodoDocument {
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const finalNewline = text.endsWith("\n");
  const body = finalNewline ? text.slice(0, -eol.length) : text;
  const lines = body === "" ? [] : body.split(eol);
  let index = 0;
  const frontmatter: string[] = [];
  if (lines[0] === "---") {
    const close = lines.indexOf("---", 1);
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
    frontmatter.push(...lines.slice(0, close + 1));
    index = close + 1;
  }
  const segments: TodoSegment[] = [];
  let raw: string[] = [];
  let entry: TodoEntry | null = null;
  const seen = new Map<number, number>();
  for (; index < lines.length; index++) {
    const line = lines[index]!;
    // Most lines are not headings; testing the first character first keeps 100k-line files fast.
    const isHeading = line.charCodeAt(0) === 35;
    const heading = isHeading ? ENTRY_HEADING.exec(line) : null;
    if (heading || (entry && isHeading && ANY_SECTION_HEADING.test(line))) {
      if (entry) segments.push(entry);
      entry = null;
    }
    if (heading) {
      if (raw.length > 0) segments.push({ kind: "raw", lines: raw });
      raw = [];
      const number = Number(heading[1]);
      const title = heading[2] ?? "";
      if (title === "") {
        throw new FileFormatError(
          "TODO_PARSE",
          path,
          `${path}:${index + 1}: task ${number} has an empty title`,
          {
            hint: `Write the title after "### ${number}. ".`,
          },
        );
      }
      const previous = seen.get(number);
      if (previous !== undefined) {
        throw new FileFormatError(
          "DUPLICATE_TASK",
          path,
          `${path}:${index + 1}: task ${number} appears twice (first at line ${previous})`,
          { hint: "Merge the two entries into one; nothing was written." },
        );
      }
      seen.set(number, index + 1);
      entry = { kind: "entry", number, title, lines: [line], sourceLine: index + 1 };
      continue;
    }
    if (entry) entry.lines.push(line);
    else raw.push(line);
  }
  if (entry) segments.push(entry);
  if (raw.length > 0) segments.push({ kind: "raw", lines: raw });
  const doc: TodoDocument = { path, eol, frontmatter, segments, finalNewline, source: text };
  for (const e of entries(doc)) {
    if (findFieldLine(e, STATUS_LINE) === -1) {
      throw new FileFormatError(
        "TODO_PARSE",
        path,
        `${path}:${e.sourceLine}: task ${e.number} has no status line`,
        { hint: 'Add a line like "- **Status**: [NOT STARTED]" under the heading; nothing was written.' },
      );
    }
  }
  return doc;
}

export function renderTodo(doc: TodoDocument): string {
  const all: string[] = [...doc.frontmatter];
  for (const segment of doc.segments) all.push(...segment.lines);
  return all.join(doc.eol) + (doc.finalNewline ? doc.eol : "");
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

export function entryStatus(entry: TodoEntry): string | undefined {
  const i = findFieldLine(entry, STATUS_LINE);
  if (i === -1) return undefined;
  const marker = STATUS_LINE.exec(entry.lines[i]!)?.[1];
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
    segments: [{ kind: "raw", lines: ["", "# TODO", "", "## Tasks", ""] }],
    finalNewline: true,
    source: "",
  };
}
