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

/** A code block: its lines (0-based, `to` excluded), its fence and language, and what it holds. */
export interface CodeBlock {
  from: number;
  to: number;
  /** Its opening fence (```` ``` ````, `~~~~`), or "" for an indented block. */
  fence: string;
  /** The info string's first word (`markdown`, `bash`), or "". */
  lang: string;
  /** The block's content, as CommonMark gives it (indentation of the fence taken off). */
  text: string;
  /** Whether its last line is its closing fence (a fence left open runs to the end of its container). */
  closed: boolean;
  /** Whether it is the document's own (not inside a list item). */
  top: boolean;
}

export interface MarkdownLines {
  /** One per line of the text split at `\n` (a `\r` before it is part of that line). */
  roles: LineRole[];
  headings: MarkdownHeading[];
  /** Every code block, fenced or indented, top level or in a list item, in order. */
  codeBlocks: CodeBlock[];
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

interface Found {
  roles: LineRole[];
  headings: MarkdownHeading[];
  codeBlocks: CodeBlock[];
}

/** A list's items and what they hold: their text stays text (a checkbox stays a checkbox). */
function readList(list: Tokens.List, start: number, out: Found) {
  let line = start;
  for (const item of list.items) {
    // An item's tokens are its content with the marker and indentation taken off, line for line.
    walk(item.tokens, line, out, false);
    line += newlines(item.raw);
  }
}

function codeBlock(token: Tokens.Code, span: { from: number; to: number }, top: boolean): CodeBlock {
  const fence = /^ {0,3}(`{3,}|~{3,})/.exec(token.raw)?.[1] ?? "";
  const last = token.raw.replace(/\n$/, "").split("\n").at(-1) ?? "";
  const closer = /^\s*(`{3,}|~{3,})\s*$/.exec(last)?.[1];
  const closed =
    fence !== "" &&
    span.to - span.from > 1 &&
    closer !== undefined &&
    closer[0] === fence[0] &&
    closer.length >= fence.length;
  const lang = (token.lang ?? "").split(/\s/)[0] ?? "";
  return { ...span, fence, lang, text: token.text, closed, top };
}

function walk(tokens: readonly Token[], start: number, out: Found, top: boolean) {
  let line = start;
  for (const token of tokens) {
    const span = spanOf(token.raw, line);
    if (token.type === "heading") {
      const heading = token as Tokens.Heading;
      if (top) {
        out.roles[line] = "heading";
        out.headings.push({ index: line, depth: heading.depth, text: heading.text });
      } else mark(out.roles, span.from, span.to, "quoted");
    } else if (token.type === "code") {
      mark(out.roles, span.from, span.to, "code");
      out.codeBlocks.push(codeBlock(token as Tokens.Code, span, top));
    } else if (token.type === "html" || token.type === "blockquote") {
      mark(out.roles, span.from, span.to, "quoted");
    } else if (token.type === "list") {
      readList(token as Tokens.List, line, out);
    }
    line += newlines(token.raw);
  }
}

/** Reads `text` as CommonMark: each line's role, the document's own headings and every code block. */
export function markdownLines(text: string): MarkdownLines {
  const count = newlines(text) + 1;
  const found: Found = { roles: new Array(count).fill("text"), headings: [], codeBlocks: [] };
  // marked reads `\r\n` as `\n` itself; done here so that its raw text and ours count the same lines.
  const normal = text.includes("\r") ? text.replace(/\r\n/g, "\n") : text;
  walk(new (markedLexer())({ gfm: true }).blockTokens(normal, []), 0, found, true);
  return found;
}
