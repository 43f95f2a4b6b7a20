import { fileURLToPath } from "node:url";
import type { Lexer as LexerClass, Token, Tokens } from "marked";
import { present } from "./present.js";

/**
 * marked, loaded the first time a document needs it (a plain TODO.md never does): the build keeps it in a
 * file of its own, `dist/vendor/marked.cjs`, so the commands and hooks that read only plain documents do not
 * pay for loading it (about 11 ms a start). From the sources (the unit tests) it is the package itself.
 */
let lexer: typeof LexerClass | undefined;
function markedLexer(): typeof LexerClass {
  if (lexer) return lexer;
  const vendored = ["../vendor/marked.cjs", "./vendor/marked.cjs"]
    .map((rel) => fileURLToPath(new URL(rel, import.meta.url)))
    .find((path) => present(path));
  // Not a string literal: the bundler must not inline marked here.
  const name = vendored ?? "marked";
  lexer = (require(name) as typeof import("marked")).Lexer;
  return lexer;
}

/**
 * What a line of a Markdown document is, as CommonMark reads it (marked's block lexer), so that callers
 * never decide it from a line's look: a ```` ```mermaid ```` code span is text, not a fence; a fence in a
 * list item ends with the item; a heading under a block quote or an HTML block is not the document's.
 *
 * - `heading`: the first line of one of the document's own headings (top level, not in a list or quote);
 * - `text`: paragraphs, list items, tables, rules, blank lines — what a reader reads as prose or fields;
 * - `code`: a fenced or indented code block, anywhere (its fence lines included);
 * - `quoted`: HTML blocks, block quotes, and headings nested in a list item — Markdown, but not part of
 *   the document's own structure.
 */
export type LineRole = "heading" | "text" | "code" | "quoted";

/** Lines a reader of the document's structure skips: code, HTML, quotes. */
export const isQuoted = (role: LineRole | undefined) => role === "code" || role === "quoted";

export interface MarkdownHeading {
  /** 0-based line. */
  index: number;
  depth: number;
  /** The heading's text as CommonMark reads it: no leading `#`s, closing `#`s or outer spaces. */
  text: string;
}

/** A fenced code block: its lines (0-based, `to` excluded) and its opening fence (```` ``` ````, `~~~~`). */
export interface FencedBlock {
  from: number;
  to: number;
  fence: string;
  /** The info string's first word (`markdown`, `bash`), or "". */
  lang: string;
  /** The block's content, as CommonMark gives it (indentation of the fence taken off). */
  text: string;
}

export interface MarkdownLines {
  /** One per line of the text split at `\n` (a `\r` before it is part of that line). */
  roles: LineRole[];
  headings: MarkdownHeading[];
  /** The document's own fenced code blocks (top level), in order. */
  fenced: FencedBlock[];
}

const newlines = (text: string) => {
  let count = 0;
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) count++;
  return count;
};

/** The lines `raw` covers from `start`: its newlines, plus the last line when it does not end in one. */
const spanOf = (raw: string, start: number) => ({
  from: start,
  to: start + newlines(raw) + (raw.endsWith("\n") || raw === "" ? 0 : 1),
});

function mark(roles: LineRole[], from: number, to: number, role: LineRole) {
  for (let i = from; i < to && i < roles.length; i++) roles[i] = role;
}

/** A list's items and what they hold, all quoted except their text (a checkbox stays a checkbox). */
function readList(list: Tokens.List, start: number, roles: LineRole[]) {
  let line = start;
  for (const item of list.items) {
    // An item's tokens are its content with the marker and indentation taken off, line for line.
    walk(item.tokens, line, roles, false);
    line += newlines(item.raw);
  }
}

interface Found {
  headings: MarkdownHeading[];
  fenced: FencedBlock[];
}

function walk(tokens: readonly Token[], start: number, roles: LineRole[], top: boolean, out?: Found) {
  let line = start;
  for (const token of tokens) {
    const span = spanOf(token.raw, line);
    if (token.type === "heading") {
      const heading = token as Tokens.Heading;
      if (top && out) {
        roles[line] = "heading";
        out.headings.push({ index: line, depth: heading.depth, text: heading.text });
      } else mark(roles, span.from, span.to, "quoted");
    } else if (token.type === "code" || token.type === "html" || token.type === "blockquote") {
      mark(roles, span.from, span.to, token.type === "code" ? "code" : "quoted");
      const fence = token.type === "code" ? /^ {0,3}(`{3,}|~{3,})/.exec(token.raw)?.[1] : undefined;
      if (top && out && fence) {
        const code = token as Tokens.Code;
        out.fenced.push({ ...span, fence, lang: (code.lang ?? "").split(/\s/)[0] ?? "", text: code.text });
      }
    } else if (token.type === "list") {
      readList(token as Tokens.List, line, roles);
    }
    line += newlines(token.raw);
  }
}

/** Reads `text` as CommonMark: each line's role and the document's own headings, in order. */
export function markdownLines(text: string): MarkdownLines {
  const count = newlines(text) + 1;
  const roles: LineRole[] = new Array(count).fill("text");
  const found: Found = { headings: [], fenced: [] };
  // marked reads `\r\n` as `\n` itself; done here so that its raw text and ours count the same lines.
  const normal = text.includes("\r") ? text.replace(/\r\n/g, "\n") : text;
  const tokens = new (markedLexer())({ gfm: true }).blockTokens(normal, []);
  walk(tokens, 0, roles, true, found);
  return { roles, ...found };
}
