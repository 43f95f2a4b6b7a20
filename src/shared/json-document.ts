import { FileFormatError, lineColumnAt } from "./errors.js";
import { JSON_DEPTH_LIMIT, JSON_SIZE_LIMIT, nestingBeyond } from "./json-limits.js";
import type { LineEnding } from "./lines.js";

/**
 * A JSON file read so that writing it back changes only what was changed: same key order, same
 * indentation, same final newline. Files in the canonical `JSON.stringify(value, null, indent)` form
 * (what jq writes) are re-serialised whole, which is fast; hand-formatted files get minimal text edits.
 */
export interface JsonDocument<T = unknown> {
  readonly path: string;
  /** The file's text exactly as read (a byte order mark and CRLF line ends included). */
  readonly text: string;
  /** The line ending written back: the file's first one, so a CRLF file stays CRLF on every line. */
  readonly eol: LineEnding;
  /** A UTF-8 byte order mark the file started with (editors on Windows leave one); kept on write. */
  readonly bom: boolean;
  readonly indent: string;
  readonly finalNewline: boolean;
  value: T;
  /** For a file that does not exist yet: the empty content it would start from. */
  defaultText?: string;
}

export function parseJsonDocument<T = unknown>(path: string, text: string): JsonDocument<T> {
  const bom = text.charCodeAt(0) === 0xfeff;
  const body = bom ? text.slice(1) : text;
  const firstNewline = body.indexOf("\n");
  const eol = firstNewline > 0 && body.charCodeAt(firstNewline - 1) === 13 ? "\r\n" : "\n";
  refuseBeyondLimits(path, body);
  let value: T;
  try {
    value = JSON.parse(body) as T;
  } catch (error) {
    throw jsonSyntaxError(path, body, error);
  }
  return { path, text, eol, bom, indent: detectIndent(body), finalNewline: body.endsWith("\n"), value };
}

function refuseBeyondLimits(path: string, body: string): void {
  if (body.length > JSON_SIZE_LIMIT) {
    throw new FileFormatError(
      "STORE_UNREADABLE",
      path,
      `${path}: ${Math.round(body.length / 1048576)} MB of JSON, more than Baton reads (${JSON_SIZE_LIMIT / 1048576} MB); nothing was written`,
      {
        hint: `Find what made ${path} this large (\`git log -p ${path}\`) and restore a version from before it.`,
      },
    );
  }
  const deep = nestingBeyond(body);
  if (!deep) return;
  const { line, column } = lineColumnAt(body, deep.offset);
  throw new FileFormatError(
    "STORE_UNREADABLE",
    path,
    `${path}:${line}:${column}: a value nested deeper than ${JSON_DEPTH_LIMIT} levels (at ${deep.path}); Baton reads no deeper, nothing was written`,
    { hint: `Remove or flatten the value at ${deep.path} (\`git diff ${path}\` shows when it came).` },
  );
}

/** The text in the form serialisation and minimal edits work on: no BOM, LF line ends. */
function lfBody(doc: JsonDocument): string {
  const body = doc.bom ? doc.text.slice(1) : doc.text;
  return doc.eol === "\r\n" ? body.replaceAll("\r\n", "\n") : body;
}

/** JSON has no raw newlines outside whitespace, so every "\n" of the output is a line end. */
function inFileForm(doc: JsonDocument, lf: string): string {
  const text = doc.eol === "\r\n" ? lf.replaceAll("\n", "\r\n") : lf;
  return doc.bom ? `\uFEFF${text}` : text;
}

function detectIndent(text: string): string {
  const match = /\n([ \t]+)\S/.exec(text);
  return match?.[1] ?? "  ";
}

function jsonSyntaxError(path: string, text: string, cause: unknown): FileFormatError {
  const offset = firstSyntaxErrorOffset(text);
  const { line, column } = lineColumnAt(text, offset);
  const detail = cause instanceof Error ? cause.message : String(cause);
  return new FileFormatError("STATE_PARSE", path, `${path}:${line}:${column}: invalid JSON (${detail})`, {
    cause,
    hint: `Fix the JSON at line ${line}, column ${column} (for example with \`git diff ${path}\`); nothing was written.`,
  });
}

/** Node's JSON.parse message format varies across versions; a tiny scanner gives a reliable offset. */
function firstSyntaxErrorOffset(text: string): number {
  const scanner = new JsonScanner(text);
  try {
    scanner.value();
    scanner.ws();
    return scanner.i < text.length ? scanner.i : text.length;
  } catch (offset) {
    return typeof offset === "number" ? offset : 0;
  }
}

/** Reads JSON and throws the offset of the first character it cannot take. */
class JsonScanner {
  i = 0;

  constructor(private readonly text: string) {}

  ws(): void {
    while (this.i < this.text.length && " \t\n\r".includes(this.text[this.i]!)) this.i++;
  }

  private fail(): never {
    throw this.i;
  }

  value(): void {
    this.ws();
    const c = this.text[this.i];
    if (c === "{") this.container("}", () => this.member());
    else if (c === "[") this.container("]", () => this.value());
    else if (c === '"') this.string();
    else {
      const match = /^(-?\d+(\.\d+)?([eE][+-]?\d+)?|true|false|null)/.exec(
        this.text.slice(this.i, this.i + 64),
      );
      if (!match) this.fail();
      this.i += match![0].length;
    }
  }

  /** An object or array: its items separated by commas, up to `close`. */
  private container(close: string, item: () => void): void {
    this.i++;
    this.ws();
    if (this.text[this.i] === close) {
      this.i++;
      return;
    }
    for (;;) {
      item();
      this.ws();
      if (this.text[this.i] === ",") {
        this.i++;
        continue;
      }
      if (this.text[this.i] === close) {
        this.i++;
        return;
      }
      this.fail();
    }
  }

  private member(): void {
    this.ws();
    if (this.text[this.i] !== '"') this.fail();
    this.string();
    this.ws();
    if (this.text[this.i] !== ":") this.fail();
    this.i++;
    this.value();
  }

  private string(): void {
    const { text } = this;
    this.i++;
    while (this.i < text.length && text[this.i] !== '"') {
      if (text[this.i] === "\\") this.i++;
      else if (text.charCodeAt(this.i) < 0x20) this.fail();
      this.i++;
    }
    if (this.i >= text.length) this.fail();
    this.i++;
  }
}

export function stringifyJson(value: unknown, indent: string, finalNewline: boolean): string {
  return JSON.stringify(value, null, indent) + (finalNewline ? "\n" : "");
}

/** True when the file is exactly what `JSON.stringify` would produce, so whole re-serialisation is lossless. */
export function isCanonical(doc: JsonDocument): boolean {
  const lf = lfBody(doc);
  return (
    stringifyJson(JSON.parse(lf), doc.indent, doc.finalNewline) === lf && inFileForm(doc, lf) === doc.text
  );
}

/** Like `isCanonical`, using the parsed value; valid only before anything mutates `doc.value`. */
export function isCanonicalValue(doc: JsonDocument): boolean {
  const lf = lfBody(doc);
  return stringifyJson(doc.value, doc.indent, doc.finalNewline) === lf && inFileForm(doc, lf) === doc.text;
}

/**
 * The new text for `doc` holding `next`, in the file's own form (BOM, line ends). `doc.text` must be the
 * text as read (callers that mutate `doc.value` in place re-parse it; that is cheap next to the write).
 */
export async function renderJsonDocument(
  doc: JsonDocument,
  next: unknown,
  canonical: boolean,
): Promise<string> {
  if (canonical) return inFileForm(doc, stringifyJson(next, doc.indent, doc.finalNewline));
  const { renderMinimalEdit } = await import("./json-edit.js");
  const lf = lfBody(doc);
  return inFileForm(doc, renderMinimalEdit(lf, JSON.parse(lf), next, doc.indent));
}
