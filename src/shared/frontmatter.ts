import { isMap, isScalar, LineCounter, parseDocument } from "yaml";

/** A Markdown file's leading `---` block as Claude Code reads it. */
export interface Frontmatter {
  /**
   * The mapping Claude Code sees; null when it cannot read the block (invalid YAML even after its
   * quoting fallback, or not a mapping). With `recovered`, `errors` is non-empty yet `data` is set.
   */
  data: Record<string, unknown> | null;
  /** YAML errors with their position in the file (already offset by the opening `---`). */
  errors: { message: string; line: number; column: number }[];
  /** Line of each top-level key in the file, for findings about a key. */
  keyLines: Record<string, number>;
  /** 1-based lines of the opening and closing `---`. */
  startLine: number;
  endLine: number;
  /** Strict YAML failed (see `errors`) but Claude Code's fallback (quoting values like `[a] [b]`) reads it. */
  recovered?: boolean;
}

const FENCE = /^---\s*$/;

/**
 * The one frontmatter parser of Baton: the engine reads agents with it, lint judges files with it and
 * init checks what it writes with it, so all three accept exactly what Claude Code accepts.
 *
 * Parses a Markdown file's leading `---` block. Positions are reported in file lines (not YAML lines) so a
 * finding points at the line an editor shows. A file that does not start with `---` has no frontmatter (null);
 * an opening fence without a closing one is reported as an error, because Claude Code then sees none at all.
 */
export function parseFrontmatter(lines: readonly string[]): Frontmatter | null {
  const first = (lines[0] ?? "").replace(/^\uFEFF/, "");
  if (!FENCE.test(first)) return null;
  let close = -1;
  for (let i = 1; i < lines.length; i++) {
    if (FENCE.test(lines[i] ?? "")) {
      close = i;
      break;
    }
  }
  if (close === -1) {
    return {
      data: null,
      errors: [{ message: "frontmatter has no closing `---`", line: 1, column: 1 }],
      keyLines: {},
      startLine: 1,
      endLine: lines.length,
    };
  }
  const source = lines.slice(1, close).join("\n");
  // Line 1 of the YAML source is line 2 of the file.
  const offset = 1;
  const strict = parseYaml(source);
  const errors = strict.doc.errors.map((error) => {
    const pos = strict.lineCounter.linePos(error.pos[0]);
    return { message: firstLine(error.message), line: pos.line + offset, column: pos.col };
  });
  // Claude Code retries a failed parse after quoting "risky" values; when that succeeds it uses the result,
  // so the file works there even though it is not YAML (other parsers, opencode's included, reject it).
  const retried = errors.length > 0 ? parseYaml(quoteRiskyValues(source)) : null;
  const recovered = retried !== null && retried.doc.errors.length === 0;
  const { doc, lineCounter } = recovered ? retried : strict;
  const keyLines: Record<string, number> = {};
  let data: Record<string, unknown> | null = null;
  const contents = doc.contents;
  if (isMap(contents)) {
    for (const pair of contents.items) {
      const key = isScalar(pair.key) ? String(pair.key.value) : null;
      const start = isScalar(pair.key) ? pair.key.range?.[0] : undefined;
      if (key !== null && start !== undefined) keyLines[key] = lineCounter.linePos(start).line + offset;
    }
    if (errors.length === 0 || recovered) data = expanded(doc, errors);
  } else if ((errors.length === 0 || recovered) && contents !== null) {
    errors.push({ message: "frontmatter is not a mapping of keys to values", line: 2, column: 1 });
  } else if (contents === null) {
    // An empty block is valid YAML (null); treat it as an empty mapping so "missing key" rules still apply.
    data = {};
  }
  return { data, errors, keyLines, startLine: 1, endLine: close + 1, ...(recovered ? { recovered } : {}) };
}

/** The mapping as plain values; an alias bomb or a value nested past the stack is a finding, not a crash. */
function expanded(
  doc: ReturnType<typeof parseDocument>,
  errors: Frontmatter["errors"],
): Record<string, unknown> | null {
  try {
    return toRecord(doc.toJS({ maxAliasCount: 100 }));
  } catch (error) {
    const message = error instanceof RangeError ? "nested too deeply" : (error as Error).message;
    errors.push({ message: `frontmatter cannot be read: ${message}`, line: 2, column: 1 });
    return null;
  }
}

function parseYaml(source: string) {
  const lineCounter = new LineCounter();
  const doc = parseDocument(source, { lineCounter, prettyErrors: false, uniqueKeys: true });
  return { doc, lineCounter };
}

const RISKY = /[{}[\]*&#!|>%@`]|: /;

/**
 * Claude Code's fallback, reproduced line for line (same regexes) so "recovered" means what it does there:
 * a `key: value` line whose unquoted value holds a YAML indicator is double-quoted, unless it is a valid
 * flow list; leading tabs become two spaces each. Lines keep their numbers, so positions stay valid.
 */
export function quoteRiskyValues(source: string): string {
  return source
    .split("\n")
    .map((line) => {
      const match = /^([a-zA-Z_-]+):\s+(\S.*)$/.exec(line);
      if (!match) return line;
      const [, key, value] = match as unknown as [string, string, string];
      if ((value.startsWith('"') && value.endsWith('"')) || (value.startsWith("'") && value.endsWith("'"))) {
        return line;
      }
      if (value.startsWith("[") && value.endsWith("]")) {
        const flow = parseDocument(value, { prettyErrors: false });
        if (flow.errors.length === 0 && Array.isArray(flow.toJS())) return line;
      }
      if (!RISKY.test(value)) return line;
      return `${key}: "${value.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
    })
    .join("\n")
    .replace(/^\t+/gm, (tabs) => "  ".repeat(tabs.length));
}

function toRecord(value: unknown): Record<string, unknown> | null {
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}

function firstLine(message: string): string {
  return message.split("\n")[0] ?? message;
}
