import { FileFormatError, lineColumnAt } from "./errors.js";

/**
 * A JSON file read so that writing it back changes only what was changed: same key order, same
 * indentation, same final newline. Files in the canonical `JSON.stringify(value, null, indent)` form
 * (what jq writes) are re-serialised whole, which is fast; hand-formatted files get minimal text edits.
 */
export interface JsonDocument<T = unknown> {
  readonly path: string;
  readonly text: string;
  readonly indent: string;
  readonly finalNewline: boolean;
  value: T;
  /** For a file that does not exist yet: the empty content it would start from. */
  defaultText?: string;
}

export function parseJsonDocument<T = unknown>(path: string, text: string): JsonDocument<T> {
  let value: T;
  try {
    value = JSON.parse(text) as T;
  } catch (error) {
    throw jsonSyntaxError(path, text, error);
  }
  return { path, text, indent: detectIndent(text), finalNewline: text.endsWith("\n"), value };
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
  let i = 0;
  const ws = () => {
    while (i < text.length && " \t\n\r".includes(text[i]!)) i++;
  };
  const fail = (): never => {
    throw i;
  };
  const value = (): void => {
    ws();
    const c = text[i];
    if (c === "{") {
      i++;
      ws();
      if (text[i] === "}") {
        i++;
        return;
      }
      for (;;) {
        ws();
        if (text[i] !== '"') fail();
        string();
        ws();
        if (text[i] !== ":") fail();
        i++;
        value();
        ws();
        if (text[i] === ",") {
          i++;
          continue;
        }
        if (text[i] === "}") {
          i++;
          return;
        }
        fail();
      }
    } else if (c === "[") {
      i++;
      ws();
      if (text[i] === "]") {
        i++;
        return;
      }
      for (;;) {
        value();
        ws();
        if (text[i] === ",") {
          i++;
          continue;
        }
        if (text[i] === "]") {
          i++;
          return;
        }
        fail();
      }
    } else if (c === '"') {
      string();
    } else {
      const match = /^(-?\d+(\.\d+)?([eE][+-]?\d+)?|true|false|null)/.exec(text.slice(i, i + 64));
      if (!match) fail();
      i += match![0].length;
    }
  };
  const string = () => {
    i++;
    while (i < text.length && text[i] !== '"') {
      if (text[i] === "\\") i++;
      else if (text.charCodeAt(i) < 0x20) fail();
      i++;
    }
    if (i >= text.length) fail();
    i++;
  };
  try {
    value();
    ws();
    if (i < text.length) return i;
    return text.length;
  } catch (offset) {
    return typeof offset === "number" ? offset : 0;
  }
}

export function stringifyJson(value: unknown, indent: string, finalNewline: boolean): string {
  return JSON.stringify(value, null, indent) + (finalNewline ? "\n" : "");
}

/** True when the file is exactly what `JSON.stringify` would produce, so whole re-serialisation is lossless. */
export function isCanonical(doc: JsonDocument): boolean {
  return stringifyJson(JSON.parse(doc.text), doc.indent, doc.finalNewline) === doc.text;
}

/** Like `isCanonical`, using the parsed value; valid only before anything mutates `doc.value`. */
export function isCanonicalValue(doc: JsonDocument): boolean {
  return stringifyJson(doc.value, doc.indent, doc.finalNewline) === doc.text;
}

/**
 * The new text for `doc` holding `next`. `original` must be the value as parsed from `doc.text`
 * (callers that mutate `doc.value` in place re-parse it; that is cheap next to the write).
 */
export async function renderJsonDocument(
  doc: JsonDocument,
  next: unknown,
  canonical: boolean,
): Promise<string> {
  if (canonical) return stringifyJson(next, doc.indent, doc.finalNewline);
  const { renderMinimalEdit } = await import("./json-edit.js");
  return renderMinimalEdit(doc.text, JSON.parse(doc.text), next, doc.indent);
}
