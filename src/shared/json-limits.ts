/**
 * How deep and how large a JSON file Baton reads. JSON.parse itself takes any depth, but everything after
 * it (schema checks, serialising, minimal edits) recurses, so a value nested thousands deep would overflow
 * the stack somewhere later, unnamed; it is refused at the read instead, naming where it goes too deep.
 */
export const JSON_DEPTH_LIMIT = 64;
export const JSON_SIZE_LIMIT = 64 * 1024 * 1024;

export interface TooDeep {
  /** Offset of the bracket that opens one level too many. */
  readonly offset: number;
  /** Where that is in the value, as `.tasks[3].extra…`. */
  readonly path: string;
}

const QUOTE = 34;
const BACKSLASH = 92;
const OPEN_BRACE = 123;
const OPEN_BRACKET = 91;
const CLOSE_BRACE = 125;
const CLOSE_BRACKET = 93;

/** The first place `text` nests deeper than `limit`, or null; strings are skipped, so brackets in them do not count. */
export function nestingBeyond(text: string, limit = JSON_DEPTH_LIMIT): TooDeep | null {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) i = stringEnd(text, i);
    else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > limit) return { offset: i, path: pathAt(text, i) };
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) depth--;
  }
  return null;
}

/** The offset of the quote that closes the string opening at `start` (or the text's end). */
function stringEnd(text: string, start: number): number {
  let i = start + 1;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === BACKSLASH) i += 2;
    else if (c === QUOTE) return i;
    else i++;
  }
  return text.length;
}

type Level = { object: boolean; key: string | undefined; index: number };

/** The member path leading to `offset`: rescanned only when a file is refused, so it may be slow. */
function pathAt(text: string, offset: number): string {
  const levels: Level[] = [];
  let lastString = "";
  for (let i = 0; i < offset; i++) {
    const c = text.charCodeAt(i);
    const top = levels[levels.length - 1];
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      lastString = text.slice(i + 1, end);
      i = end;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET)
      levels.push({ object: c === OPEN_BRACE, key: undefined, index: 0 });
    else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) levels.pop();
    else if (c === 58 && top?.object) top.key = lastString;
    else if (c === 44 && top && !top.object) top.index++;
  }
  const parts = levels.map((l) => (l.object ? `.${l.key ?? ""}` : `[${l.index}]`));
  const shown = parts.length > 8 ? [...parts.slice(0, 8), "…"] : parts;
  return shown.join("") || "(top level)";
}
