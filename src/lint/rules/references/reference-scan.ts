import { bodyLines, isNegativeExample, isNegativeLine } from "../../markdown-body.js";
import type { LintFile, LintModel } from "../../rule-types.js";

/** A name or path one file mentions, where it mentions it. */
export interface Reference {
  file: LintFile;
  name: string;
  line: number;
  column: number;
  /** How it was written, for the message: `subagent_type`, `Skill(...)`, a table column, … */
  via: string;
}

// Values with braces, `$`, `<…>` or `*` are templates ("{agent-name}", "${target}"), not names.
const NAME = /^[A-Za-z][\w.-]*$/;

// An unquoted name stops before the full stop or colon that ends the sentence it is in.
const SUBAGENT_TYPE =
  /["']?\bsubagent_type["']?\s*[:=]\s*(?:(["'])([^"'\s,)}\]]+)\1|()([^"'\s,)}\]]*[^"'\s,)}\].:;]))/g;
const THE_AGENT = /\bthe\s+`([^`\s]+)`\s+(?:sub-?)?agent\b/gi;
const SKILL_CALL = /\bSkill\(\s*["']?([^)"'\s]+)["']?\s*\)/g;
// `skill: "x"` as a Skill tool input, alone on its line: mid-sentence prose ("required skill: Lean") is
// not a reference, and the JSON form (`"skill": "x"`) is metadata files recording who wrote them.
const SKILL_INPUT = /^\s*(?:[-*]\s+)?skill\s*:\s*(["']?)([^"'\s,}]+)\1\s*$/;
// Table cells and `Skill(x)` name things by convention in lowercase-hyphen form (Claude Code requires it
// of agent names); "Pass-through", "Agent-specific" or "Skill(s)" are prose.
const CONVENTIONAL = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;

/**
 * Markdown the model reads as instructions, where routing tables and call patterns live: commands, skills and
 * agents (a sub-agent may delegate too), plus the context, rules and memory file at a tree's top they load.
 */
export function instructionFiles(model: LintModel): LintFile[] {
  const atTreeTop = (f: LintFile) => f.kind === "memory" && f.path.split("/").length === 2;
  return model.files.filter(
    (f) =>
      f.path.endsWith(".md") &&
      (f.kind === "command" ||
        f.kind === "skill" ||
        f.kind === "agent" ||
        f.kind === "context" ||
        f.kind === "rule" ||
        atTreeTop(f)),
  );
}

export function agentReferences(model: LintModel): Reference[] {
  const out: Reference[] = [];
  for (const file of instructionFiles(model)) {
    if (!/agent/i.test(file.text)) continue;
    for (const body of bodyLines(file)) {
      const { text, line } = body;
      // Cheap substring tests first: most lines name no agent, and the regexes below are not free.
      const call = text.includes("subagent_type");
      const prose = !body.inFence && text.includes("` ") && /agent/i.test(text);
      if (!call && !prose) continue;
      // `subagent_type: "x"` is the call itself, so examples in code fences count: that is where calls are.
      if (isNegativeLine(body)) continue;
      if (call) {
        for (const match of text.matchAll(SUBAGENT_TYPE)) {
          const name = match[2] ?? match[4];
          push(out, file, name, line, match.index + match[0].indexOf(name ?? ""), "subagent_type");
        }
      }
      if (prose) {
        for (const match of text.matchAll(THE_AGENT)) {
          push(out, file, match[1], line, match.index + match[0].indexOf("`") + 1, "the `…` agent");
        }
      }
    }
    out.push(...tableReferences(file, /\b(sub-?)?agents?\b/i, "agent"));
  }
  return out;
}

export function skillReferences(model: LintModel): Reference[] {
  const out: Reference[] = [];
  for (const file of instructionFiles(model)) {
    const skills = file.kind === "agent" ? file.frontmatter?.data?.["skills"] : undefined;
    for (const name of listOf(skills)) {
      const keyLine = file.frontmatter?.keyLines["skills"] ?? 1;
      push(out, file, name, keyLine, Math.max(0, (file.lines[keyLine - 1] ?? "").indexOf(name)), "`skills:`");
    }
    // Frontmatter too: `allowed-tools: Skill(x)` grants a skill by name.
    const frontmatterLines = file.lines
      .slice(0, file.bodyStartLine - 1)
      .map((text, i) => ({ text, line: i + 1, inFence: false }));
    if (!/skill/i.test(file.text)) continue;
    for (const body of [...frontmatterLines, ...bodyLines(file)]) {
      const { text, line } = body;
      if (!text.includes("kill") || isNegativeLine(body)) continue;
      for (const match of text.matchAll(SKILL_CALL)) {
        const name = match[1] ?? "";
        if (name.length < 2 || !CONVENTIONAL.test(name)) continue;
        push(out, file, name, line, match.index + match[0].indexOf(name), "Skill(…)");
      }
      const input = line >= file.bodyStartLine ? SKILL_INPUT.exec(text) : null;
      if (input?.[2]) push(out, file, input[2], line, text.indexOf(input[2]), "`skill:`");
    }
    out.push(...tableReferences(file, /\bskills?\b/i, "skill"));
  }
  return out;
}

function push(
  out: Reference[],
  file: LintFile,
  name: string | undefined,
  line: number,
  index: number,
  via: string,
) {
  // `plugin:name` belongs to a plugin, which this tree does not hold.
  if (!name || !NAME.test(name) || name.includes(":")) return;
  out.push({ file, name, line, column: index + 1, via });
}

function listOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === "string");
  return typeof value === "string"
    ? value
        .split(",")
        .map((v) => v.trim())
        .filter(Boolean)
    : [];
}

/**
 * Routing tables ("| Language | Skill to Invoke |"): each body cell under a header naming agents or skills
 * is a reference when it holds nothing but names. Prose cells ("See Logic Language Routing below") are
 * skipped, and a bare word must be backticked or hyphenated to count, so "none" or "inline" never do.
 */
function tableReferences(file: LintFile, header: RegExp, what: string): Reference[] {
  const out: Reference[] = [];
  if (!file.text.includes("|")) return out;
  const lines = bodyLines(file);
  for (let i = 0; i + 1 < lines.length; i++) {
    const head = lines[i];
    const rule = lines[i + 1];
    if (!head || !rule || head.inFence || !rule.text.includes("---") || !isRow(head.text)) continue;
    if (!/^\s*\|?\s*:?-{3,}/.test(rule.text)) continue;
    const columns = cells(head.text).map(
      (cell) => header.test(cell.text) && !/\b(count|size|number|type of)\b/i.test(cell.text),
    );
    if (!columns.includes(true)) continue;
    for (let j = i + 2; j < lines.length && isRow(lines[j]?.text ?? ""); j++) {
      const row = lines[j]!;
      cells(row.text).forEach((cell, index) => {
        if (!columns[index] || isNegativeExample(row.text)) return;
        for (const name of namesIn(cell.text)) {
          push(out, file, name.name, row.line, cell.start + name.offset, `a table's ${what} column`);
        }
      });
      i = j;
    }
  }
  return out;
}

function isRow(text: string): boolean {
  return /^\s*\|.*\|\s*$/.test(text);
}

function cells(text: string): { text: string; start: number }[] {
  const out: { text: string; start: number }[] = [];
  const first = text.indexOf("|");
  let start = first + 1;
  for (let i = start; i < text.length; i++) {
    if (text[i] === "|" && text[i - 1] !== "\\") {
      out.push({ text: text.slice(start, i), start });
      start = i + 1;
    }
  }
  return out;
}

/** `skill-a`, `` `x` ``, `a, b` → names with offsets in the cell; any prose → none at all. */
function namesIn(cell: string): { name: string; offset: number }[] {
  const out: { name: string; offset: number }[] = [];
  const parts = cell.split(/,|\bor\b|\//);
  let offset = 0;
  for (const part of parts) {
    const trimmed = part.trim().replace(/^\*\*(.*)\*\*$/, "$1");
    const ticked = /^`([^`]+)`$/.exec(trimmed);
    const name = ticked ? ticked[1]! : trimmed;
    if (trimmed === "" || /^(-+|—|n\/a|none)$/i.test(trimmed)) return [];
    if (!CONVENTIONAL.test(name) || (!ticked && !name.includes("-"))) return [];
    out.push({ name, offset: cell.indexOf(name, offset) });
    offset += part.length + 1;
  }
  return out;
}
