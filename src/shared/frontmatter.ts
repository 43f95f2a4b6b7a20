import { isMap, isScalar, LineCounter, parseDocument } from "yaml";
import type { Frontmatter } from "../types.js";

const FENCE = /^---\s*$/;

/**
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
    if (errors.length === 0 || recovered) data = toRecord(doc.toJS());
  } else if ((errors.length === 0 || recovered) && contents !== null) {
    errors.push({ message: "frontmatter is not a mapping of keys to values", line: 2, column: 1 });
  } else if (contents === null) {
    // An empty block is valid YAML (null); treat it as an empty mapping so "missing key" rules still apply.
    data = {};
  }
  return { data, errors, keyLines, startLine: 1, endLine: close + 1, ...(recovered ? { recovered } : {}) };
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
