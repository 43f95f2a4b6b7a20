/**
 * delegation/returns-completed: an agent (or the skill/context text that instructs it) told to return the
 * status `completed`: `"status": "completed"` at the top of a return-metadata example, `"status":
 * "completed|partial|failed"` in a return format, "Status is one of: completed, partial, failed".
 *
 * Why: in the original the word "completed" in a sub-agent's return made Claude Code end the turn before
 * the skill's postflight ran (failure mode 1, premature stops), leaving tasks stuck `[RESEARCHING]`. The
 * agent statuses are `researched | planned | implemented | partial | failed | blocked`; only Baton sets
 * a task `completed`. A task entry of state.json (`"project_number"` beside it) is a task status, not a
 * return, and a `teammate_results[].status` nested inside a return is not the agent's own status.
 */
import { type FileKind, type Finding, finding, type LintFile, type Rule } from "../../rule-types.js";
import { eachFileOf, heading, isNegated, type TextLine, textLines } from "./delegation-scan.js";

const KINDS = new Set<FileKind>(["agent", "skill", "command", "context", "rule"]);
const KEY = /"([\w$-]+)"\s*:\s*(?:"([^"]*)")?/g;
const RETURN_KEYS = new Set([
  "artifacts",
  "summary",
  "metadata",
  "next_steps",
  "errors",
  "partial_progress",
  "completion_data",
]);
// Task entries and state-update payloads (`"operation": "implementation_complete"`) carry task statuses.
const TASK_KEYS = new Set([
  "project_number",
  "project_name",
  "active_projects",
  "completed_projects",
  "operation",
]);
// A block shown as what goes wrong ("**Problem**: …", "Bad:", "❌") is a counter-example.
const COUNTER_EXAMPLE = /\b(problem|bad|wrong|incorrect|invalid|anti-pattern|avoid)\b|❌/i;
const RETURN_CONTEXT = /\breturn|metadata|\bresult\b/i;

export const returnsCompleted: Rule = {
  id: "delegation/returns-completed",
  severity: "error",
  description: 'Agents must not be told to return status "completed" (it ends the turn early)',
  check: eachFileOf(KINDS, checkFile),
};

function checkFile(file: LintFile): Finding[] {
  const lines = textLines(file);
  const out: Finding[] = [];
  const jsonLines = new Set<number>();
  const blocks = new Map<number, TextLine[]>();
  for (const l of lines) if (l.code) blocks.set(l.block, [...(blocks.get(l.block) ?? []), l]);
  for (const block of blocks.values()) {
    if (!/^\s*[{[]/.test(block.find((l) => l.text.trim() !== "")?.text ?? "")) continue;
    for (const l of block) jsonLines.add(l.line);
    const keys = topLevelKeys(block);
    const hit = keys.find((k) => k.key === "status" && /\bcompleted\b/.test(k.value ?? ""));
    if (hit && isReturnBlock(block, keys, lines)) out.push(report(file, hit.line));
  }
  lines.forEach((l, i) => {
    if (l.fence || jsonLines.has(l.line) || !isProseInstruction(l)) return;
    if (isNegated(l.text) || underNegatedList(lines, i)) return;
    if (!RETURN_CONTEXT.test(l.text) && !RETURN_CONTEXT.test(headingAbove(lines, i))) return;
    out.push(report(file, l));
  });
  return out;
}

interface Key {
  key: string;
  /** The value when it is a string. */
  value: string | undefined;
  line: TextLine;
}

/** Keys of the outermost object of a JSON-ish block (placeholders like `{N}` need not parse). */
function topLevelKeys(block: TextLine[]): Key[] {
  const out: Key[] = [];
  let depth = 0;
  for (const l of block) {
    // Depth at the key itself: `"teammate_results": [{"status": "completed"}` opens two levels first.
    for (const match of l.text.matchAll(KEY)) {
      if (depth + depthChange(l.text.slice(0, match.index)) === 1) {
        out.push({ key: match[1] ?? "", value: match[2], line: l });
      }
    }
    depth += depthChange(l.text);
  }
  return out;
}

function depthChange(text: string): number {
  let change = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (inString) {
      if (char === "\\") i++;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === "{" || char === "[") change++;
    else if (char === "}" || char === "]") change--;
  }
  return change;
}

/** A return: return-shaped keys and no task-entry keys at the top, or a "Return …" heading above it. */
function isReturnBlock(block: TextLine[], keys: Key[], lines: TextLine[]): boolean {
  if (keys.some((k) => TASK_KEYS.has(k.key))) return false;
  const first = lines.findIndex((l) => l.line === block[0]?.line);
  if (proseAbove(lines, first, 3).some((text) => COUNTER_EXAMPLE.test(text))) return false;
  return keys.some((k) => RETURN_KEYS.has(k.key)) || RETURN_CONTEXT.test(headingAbove(lines, first));
}

/**
 * "Status is one of: completed, partial, failed, blocked", `status: completed|partial|failed`, "Return
 * status "completed"", "Validate return status == "completed"". Descriptions in the past tense ("the
 * agent returned "completed" without artifacts") and code comparisons are not instructions.
 */
function isProseInstruction(l: TextLine): boolean {
  const text = l.text;
  if (l.code || !/\bcompleted\b/.test(text) || /state\.json|TODO\.md|\btask status\b/i.test(text))
    return false;
  // A list of return statuses, not task statuses (those carry in-progress or archive values).
  const returnList =
    /\bstatus\b/i.test(text) &&
    /\bpartial\b/.test(text) &&
    /\b(failed|blocked)\b/.test(text) &&
    !/\b(not_started|researching|planning|implementing|abandoned|archived|expanded)\b/.test(text);
  const imperative =
    /\breturns?\s+(?:a\s+|the\s+)?(?:status\s+)?(?:of\s+)?[`"']completed[`"']/i.test(text) ||
    /\b(?:validate|check|verify|expect|ensure|confirm)\w*\s+(?:that\s+)?(?:the\s+)?return(?:ed)?\s+status\s*(?:==|=|is)\s*[`"']completed[`"']/i.test(
      text,
    );
  return returnList || imperative;
}

/** The nearest Markdown heading above a line, plus the line before the block it sits in. */
function headingAbove(lines: TextLine[], index: number): string {
  let context = "";
  for (let i = index - 1; i >= 0; i--) {
    const l = lines[i];
    if (!l || l.code) continue;
    if (context === "" && l.text.trim() !== "" && !l.fence) context = l.text;
    const h = heading(l.text);
    if (h !== null) return `${h} ${context}`;
  }
  return context;
}

/** Up to `count` non-empty prose lines above a line, stopping at a heading or another code block. */
function proseAbove(lines: TextLine[], index: number, count: number): string[] {
  const out: string[] = [];
  for (let i = index - 1; i >= 0 && out.length < count; i--) {
    const l = lines[i];
    if (!l || l.code || heading(l.text) !== null) break;
    if (!l.fence && l.text.trim() !== "") out.push(l.text);
    else if (l.fence && i !== index - 1) break;
  }
  return out;
}

/** Item of a list introduced by "**MUST NOT**:" / "Never:" (the item itself reads as an instruction). */
function underNegatedList(lines: TextLine[], index: number): boolean {
  for (let i = index - 1; i >= 0; i--) {
    const l = lines[i];
    if (!l || l.text.trim() === "") return false;
    if (/^\s*(?:[-*]|\d+\.)\s/.test(l.text)) continue;
    return isNegated(l.text);
  }
  return false;
}

function report(file: LintFile, l: TextLine): Finding {
  return finding(
    returnsCompleted,
    file.path,
    l.line,
    Math.max(1, l.text.indexOf("completed") + 1),
    `tells the agent to return status "completed": ${l.text.trim().slice(0, 80)}`,
    'Agents return researched, planned, implemented, partial, failed or blocked; "completed" ends the turn ' +
      "before postflight. Only Baton sets a task completed.",
  );
}
