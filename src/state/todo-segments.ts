import { markdownLines } from "../shared/markdown-lines.js";
import type { Irregularity } from "./irregularity.js";

/** How TODO.md is cut into segments: the line patterns, the frontmatter block, and the entry headings. */

export const ENTRY_HEADING = /^### (\d+)\.(?:\s+(.*?))?\s*$/;
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
/**
 * What can make a line that starts with `#` anything but a heading of the document, or a heading out of a
 * line that does not start with one: a fence, an HTML block, an indented `#`. A file without any of them
 * (most TODO.md files) has exactly its column-0 ATX lines as headings, and is read without the lexer.
 */
const NOT_PLAIN = /^ {0,3}(?:`{3,}|~{3,}|<)|^ {1,3}#/m;
const ATX_HEADING = /^#{1,6}(?:[ \t]|$)/;
/**
 * A field line: `- **Name**: value`, and the spellings real files also use: `- **Name:** value`, a `*`
 * bullet, or no bullet at all (` **Status**: …`, written by an older tool). Group 1 is the prefix up to
 * the name, kept when Baton writes the line back.
 */
export const FIELD_PREFIX = "^(\\s*(?:[-*+]\\s+)?)\\*\\*";
export const STATUS_LINE = /^(\s*(?:[-*+]\s+)?)\*\*Status(?:\*\*:|:\*\*)\s*(\[[^\]]*\])/;
export const NEXT_NUMBER_LINE = /^next_project_number:\s*(\d+)\s*$/;
const FRONTMATTER_FENCE = /^---[ \t]*$/;

/** Start offsets and texts (terminator excluded) of the lines of `text` from `from` on. */
export function* linesFrom(text: string, from: number): Generator<{ start: number; line: string }> {
  for (let start = from; start < text.length; ) {
    const nl = text.indexOf("\n", start);
    const end = nl === -1 ? text.length : nl;
    const line = text.slice(start, end > start && text.charCodeAt(end - 1) === 13 ? end - 1 : end);
    yield { start, line };
    start = nl === -1 ? text.length : nl + 1;
  }
}

/** Where the body starts after the frontmatter block (0 without one); an unclosed block is body, reported. */
export function frontmatterEnd(path: string, text: string, irregular: Irregularity[]): number {
  const lines = linesFrom(text, 0);
  const first = lines.next();
  if (first.done || !FRONTMATTER_FENCE.test(first.value.line)) return 0;
  for (const { start, line } of lines) {
    if (!FRONTMATTER_FENCE.test(line)) continue;
    const nl = text.indexOf("\n", start);
    const end = nl === -1 ? text.length : nl + 1;
    return end;
  }
  irregular.push({
    code: "FRONTMATTER_OPEN",
    file: path,
    line: 1,
    message: 'the frontmatter opened with "---" is never closed, so Baton reads it as text',
    fix: 'add a closing "---" line after the frontmatter keys',
    fixable: false,
    writable: true,
  });
  return 0;
}

export interface Cut {
  at: number;
  entry: { number: number; title: string } | null;
}

/** Start offsets and texts of the document's own headings from `body` on, read as CommonMark. */
function* headingLines(text: string, body: number): Generator<{ start: number; line: string }> {
  const rest = text.slice(body);
  if (!NOT_PLAIN.test(rest)) {
    for (const at of linesFrom(text, body))
      if (at.line.charCodeAt(0) === 35 && ATX_HEADING.test(at.line)) yield at;
    return;
  }
  const headings = markdownLines(rest).headings;
  let next = 0;
  let index = 0;
  for (const at of linesFrom(text, body)) {
    const heading = headings[next];
    if (heading === undefined) return;
    if (heading.index === index++) {
      next++;
      // The heading as its `#`s and CommonMark text say, whatever its indentation or closing `#`s.
      yield { start: at.start, line: `${"#".repeat(heading.depth)} ${heading.text}` };
    }
  }
}

/**
 * Where segments start: an entry heading inside a tasks section starts an entry, and inside an entry
 * any H1-H3 heading ends it. Only the document's own headings count (never a line in code, HTML or a
 * quote). Without any tasks section heading the whole file is one (a minimal TODO.md of bare entries).
 */
export function segmentCuts(text: string, body: number): Cut[] {
  const cuts: Cut[] = [];
  const wholeFile = !TASK_SECTION_ANYWHERE.test(text.slice(body));
  let inTasks = wholeFile;
  let inEntry = false;
  for (const { start, line } of headingLines(text, body)) {
    if (!wholeFile && TOP_SECTION_HEADING.test(line)) inTasks = TASK_SECTION.test(line);
    const heading = inTasks ? ENTRY_HEADING.exec(line) : null;
    if (heading) {
      const number = Number(heading[1]);
      const title = heading[2] ?? "";
      cuts.push({ at: start, entry: { number, title } });
      inEntry = true;
    } else if (inEntry && ANY_SECTION_HEADING.test(line)) {
      cuts.push({ at: start, entry: null });
      inEntry = false;
    }
  }
  return cuts;
}
