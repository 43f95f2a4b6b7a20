/**
 * delegation/direct-state-write: a command, skill, agent or script that writes `specs/state.json` or
 * `specs/TODO.md` itself (`jq … > tmp && mv tmp specs/state.json`, `sed -i … TODO.md`, Python/Node writes).
 *
 * Why: the original wrote state with ad-hoc `jq … > /tmp/state.json && mv` pipelines and TODO.md with LLM
 * edits, from dozens of places. Nothing kept the two files in step: ≥1 status mismatch in 551 of 676
 * sampled commits, one fixed temp file shared by concurrent writers, an archive overwritten from 639 to 24
 * entries. Baton's store is the single write path (lock, journal, both files in one transaction).
 * Reads (`jq -r … specs/state.json`) are fine and not reported.
 */
import { finding, type LintFile, type LintModel, type Rule } from "../../rule-types.js";
import { isComment, stripShellComment, type TextLine, textLines } from "./delegation-scan.js";

const KINDS = new Set(["command", "skill", "agent", "script", "hook-script"]);
// The files only Baton writes (the same set its PreToolUse hook protects). `specs/reviews/state.json`
// belongs to /review and is not one of them. A temp copy (`/tmp/state.json`) is the first half of the
// pipeline, not the write; the `mv` onto the real file is reported instead.
const STATE_FILE = /(^|\/)specs\/(state\.json|TODO\.md|archive\/state\.json|errors\.json)$/;
const BARE_STATE = /^(state\.json|TODO\.md)$/;
// `"$SPECS_DIR/state.json"`, `${specs}/TODO.md`: a variable naming the specs folder.
const SPECS_VAR_STATE = /^\$\{?\w*spec\w*\}?\/(state\.json|TODO\.md|archive\/state\.json|errors\.json)$/i;
const ASSIGN =
  /^\s*(?:local\s+|export\s+|readonly\s+)?([A-Za-z_]\w*)\s*=\s*(?:Path\()?["']?([^"'\s)]+)["']?\)?\s*(?:#.*)?$/;

export const directStateWrite: Rule = {
  id: "delegation/direct-state-write",
  severity: "error",
  description: "Commands, skills and scripts must not write specs/state.json or TODO.md themselves",
  check(model: LintModel) {
    const out = [];
    for (const file of model.files) {
      if (!KINDS.has(file.kind)) continue;
      out.push(...checkFile(file));
    }
    return out;
  },
};

function checkFile(file: LintFile) {
  const lines = textLines(file).filter((l) => l.code && !isComment(l.text));
  const vars = stateVariables(lines);
  const out = [];
  for (const command of logicalLines(lines)) {
    const hit = writeOn(command.text, vars);
    if (!hit) continue;
    // Report on the physical line holding the write, not the start of a `\`-continued command.
    const part = command.parts.filter((p) => p.offset <= hit.column - 1).pop() ?? command.parts[0];
    if (!part) continue;
    out.push(
      finding(
        directStateWrite,
        file.path,
        part.line,
        hit.column - part.offset,
        `writes ${hit.target} directly (${hit.how})`,
        "Change tasks through Baton (`baton task status N <status>`, `baton task edit`, `baton task add`, " +
          "`baton gate-in` / `baton gate-out`; `baton archive` for the archive): its store writes state.json and " +
          "TODO.md together under a lock. Reading them (cat, jq -r) is fine.",
      ),
    );
  }
  return out;
}

interface LogicalLine {
  text: string;
  parts: { line: number; offset: number }[];
}

/** Joins `\`-continued lines of one block, so `sed -i '…' \` + `specs/TODO.md` is one command. */
function logicalLines(lines: TextLine[]): LogicalLine[] {
  const out: LogicalLine[] = [];
  let current: (LogicalLine & { block: number }) | null = null;
  for (const l of lines) {
    const text = stripShellComment(l.text);
    if (current && current.block === l.block) {
      current.parts.push({ line: l.line, offset: current.text.length });
      current.text += text;
    } else {
      if (current) out.push(current);
      current = { text, parts: [{ line: l.line, offset: 0 }], block: l.block };
    }
    if (/\\\s*$/.test(text)) current.text = current.text.replace(/\\\s*$/, " ");
    else {
      out.push(current);
      current = null;
    }
  }
  if (current) out.push(current);
  return out;
}

/** Shell or Python variables assigned a state path (`STATE_FILE="specs/state.json"`). */
function stateVariables(lines: TextLine[]): Set<string> {
  const vars = new Set<string>();
  for (const l of lines) {
    const match = ASSIGN.exec(l.text);
    if (match?.[1] && match[2] && isStatePath(match[2], vars)) vars.add(match[1]);
  }
  return vars;
}

function isStatePath(word: string, vars: Set<string>): boolean {
  const clean = word.replace(/^["']|["';)]+$/g, "");
  const variable = /^\$\{?([A-Za-z_]\w*)\}?$/.exec(clean);
  if (variable?.[1]) return vars.has(variable[1]);
  if (/^[A-Za-z_]\w*$/.test(clean)) return vars.has(clean); // a Python variable name
  return STATE_FILE.test(clean) || BARE_STATE.test(clean) || SPECS_VAR_STATE.test(clean);
}

interface Hit {
  target: string;
  how: string;
  column: number;
}

const WORD = String.raw`("[^"]*"|'[^']*'|[^\s;|&)<>]+)`;
const REDIRECT = new RegExp(String.raw`(^|[^0-9&>-])(>>?)\s*` + WORD, "g");
const MOVE = /\b(mv|cp)\s+([^;&|]*)/g;
const TEE = new RegExp(String.raw`\b(tee|sponge)\s+(?:-a\s+)?` + WORD, "g");
const IN_PLACE = /\b(sed\s+(?:-\w+\s+)*-i|sed\s+--in-place|perl\s+-p?i|yq\s+(?:-\w+\s+)*-i)\b([^;&|]*)/g;
const PY_OPEN = new RegExp(
  String.raw`\bopen\(\s*` + WORD + String.raw`\s*,\s*(?:mode\s*=\s*)?["'][wax]`,
  "g",
);
const JS_WRITE = new RegExp(
  String.raw`\b(?:writeFileSync|writeFile|appendFileSync|appendFile)\(\s*` + WORD,
  "g",
);
const PY_WRITE_TEXT = new RegExp(String.raw`(?:Path\(\s*)?` + WORD + String.raw`\s*\)?\.write_text\(`, "g");

/** The first write to one of the store's files in one shell or script line, or null (a Markdown example's too). */
export function storeWriteIn(text: string): { target: string; how: string } | null {
  const found = writeOn(text, new Set());
  return found ? { target: found.target, how: found.how } : null;
}

/** The first write to a state file on a line, or null. */
function writeOn(text: string, vars: Set<string>): Hit | null {
  for (const match of text.matchAll(REDIRECT)) {
    const target = match[3] ?? "";
    if (isStatePath(target, vars))
      return hit(target, `redirect \`${match[2]}\``, match.index + (match[1]?.length ?? 0));
  }
  for (const match of text.matchAll(MOVE)) {
    const args = (match[2] ?? "")
      .trim()
      .split(/\s+/)
      .filter((a) => !a.startsWith("-"));
    const target = args[args.length - 1] ?? "";
    if (args.length >= 2 && isStatePath(target, vars))
      return hit(target, `\`${match[1]}\` onto it`, match.index);
  }
  for (const match of text.matchAll(TEE)) {
    const target = match[2] ?? "";
    if (isStatePath(target, vars)) return hit(target, `\`${match[1]}\``, match.index);
  }
  for (const match of text.matchAll(IN_PLACE)) {
    const target = (match[2] ?? "")
      .trim()
      .split(/\s+/)
      .find((a) => isStatePath(a, vars));
    if (target) return hit(target, "in-place edit", match.index);
  }
  for (const pattern of [PY_OPEN, JS_WRITE, PY_WRITE_TEXT]) {
    for (const match of text.matchAll(pattern)) {
      const target = match[1] ?? "";
      if (isStatePath(target, vars)) return hit(target, "file write", match.index);
    }
  }
  return null;
}

function hit(target: string, how: string, index: number): Hit {
  return { target: target.replace(/^["']|["']$/g, ""), how, column: index + 1 };
}
