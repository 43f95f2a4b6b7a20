import { isQuoted, type MarkdownLines, markdownLines } from "../shared/markdown-lines.js";
import {
  BULLET_DEPENDENCIES,
  type DependencyGroup,
  LINE_DEPENDENCIES,
  parseBulletDependencyGroups,
  parseLineDependencies,
} from "./dependencies.js";
import { CHECKBOX, type Heading, normaliseStatus, readHeading, unreadPhaseHeading } from "./plan-markdown.js";
import type { ParseResult, Phase, Plan, PlanProblem, PlanStatus, PlanStyle } from "./plan-types.js";
import { type PhaseDraft, resolveReferences } from "./references.js";

export { normaliseStatus } from "./plan-markdown.js";

const PLAN_STATUS = /^\s*[-*]\s+\*\*Status(?::\*\*|\*\*\s*:)\s*\[([^\]]+)\]/;
const STYLE_B_FIELD = /^(implementer|lean_file)\s*:\s*(.*)$/;
const STYLE_B_LINE = /^(?:dependencies|implementer|lean_file)\s*:/;
const METADATA_SECTION = /^## Metadata\s*$/;

/** A phase as its heading declares it, before its body is read. */
function headingPhase(heading: Heading, id: string, end: number, carried: boolean): Phase {
  return {
    id,
    name: heading.name,
    carried,
    line: heading.index + 1,
    endLine: end + 1,
    depth: heading.depth,
    marker: heading.marker,
    status: heading.marker === null ? null : normaliseStatus(heading.marker),
    dependencies: [],
    dependenciesLine: null,
    implementer: null,
    leanFiles: [],
    checkboxes: { done: 0, total: 0 },
  };
}

function carriedPhases(heading: Heading, end: number): Phase[] {
  return heading.ids.map((id) => headingPhase(heading, id, end, true));
}

function readPhase(
  lines: readonly string[],
  fenced: readonly boolean[],
  heading: Heading,
  end: number,
  problems: PlanProblem[],
): PhaseDraft {
  const phase = headingPhase(heading, heading.ids[0] ?? "", end, false);
  let groups: DependencyGroup[] = [];
  // Style B fields sit in the plain lines right under the heading.
  for (let i = heading.index + 1; i <= end; i++) {
    const line = lines[i] ?? "";
    if (line.trim() === "") continue;
    const field = STYLE_B_FIELD.exec(line);
    if (!field) {
      if (LINE_DEPENDENCIES.test(line)) continue;
      break;
    }
    const value = (field[2] ?? "").trim();
    if (field[1] === "implementer") {
      if (value === "lean" || value === "software") phase.implementer = value;
      else problems.push({ line: i + 1, message: `implementer must be lean or software, not "${value}"` });
    } else {
      phase.leanFiles = value
        .split(",")
        .map((f) => f.trim())
        .filter((f) => f !== "");
    }
  }
  for (let i = heading.index + 1; i <= end; i++) {
    if (fenced[i]) continue;
    const line = lines[i] ?? "";
    const box = CHECKBOX.exec(line);
    if (box) {
      phase.checkboxes.total++;
      if (box[1] !== " ") phase.checkboxes.done++;
      continue;
    }
    if (phase.dependenciesLine !== null) continue;
    const bullet = BULLET_DEPENDENCIES.exec(line);
    const plain = bullet ? null : LINE_DEPENDENCIES.exec(line);
    if (!bullet && !plain) continue;
    const value = (bullet ?? plain)?.[1] ?? "";
    phase.dependenciesLine = i + 1;
    const parsed = bullet ? parseBulletDependencyGroups(value) : lineGroups(value);
    if (parsed === null) {
      problems.push({
        line: i + 1,
        message: `Phase ${phase.id}: cannot read dependencies "${value.trim()}" (expected None, Phase N, … or [N, N])`,
      });
    } else {
      groups = parsed;
    }
  }
  return { phase, groups };
}

/** The line form has no qualifiers: one unqualified group. */
function lineGroups(value: string): DependencyGroup[] | null {
  const ids = parseLineDependencies(value);
  if (ids === null) return null;
  return ids.length === 0 ? [] : [{ ids, completed: false, text: value.trim() }];
}

function readPlanStatus(
  lines: readonly string[],
  fenced: readonly boolean[],
  before: number,
): PlanStatus | null {
  for (let i = 0; i < before; i++) {
    if (fenced[i]) continue;
    const match = PLAN_STATUS.exec(lines[i] ?? "");
    if (match?.[1]) return { marker: match[1].trim(), status: normaliseStatus(match[1]), line: i + 1 };
  }
  return null;
}

const isCompleteMarker = (marker: string | null | undefined) =>
  marker != null && (marker.split(/\s+-\s+/)[0] ?? "").trim() === "COMPLETE";

/**
 * Hard-barrier plans are told apart by what only they write (hard-barrier 1.2-1.4): a `## Metadata`
 * section, `dependencies:` / `implementer:` / `lean_file:` lines in a phase, or the `[COMPLETE]` marker
 * (the task system writes `[COMPLETED]`). Anything else is a task-system plan.
 */
function detectStyle(
  lines: readonly string[],
  fenced: readonly boolean[],
  phases: readonly Phase[],
  status: PlanStatus | null,
): PlanStyle {
  const open = (i: number) => !fenced[i];
  if (lines.some((line, i) => open(i) && METADATA_SECTION.test(line))) return "hard-barrier";
  for (const phase of phases) {
    if (phase.carried) continue;
    for (let i = phase.line; i < phase.endLine; i++) {
      if (open(i) && STYLE_B_LINE.test(lines[i] ?? "")) return "hard-barrier";
    }
  }
  if (phases.some((p) => isCompleteMarker(p.marker)) || isCompleteMarker(status?.marker))
    return "hard-barrier";
  return "task";
}

/** The plan's own headings: phases, the title and the sections that end a phase's body. */
interface Outline {
  title: string | null;
  headings: Heading[];
  sectionStarts: number[];
  unread: PlanProblem[];
}

function outline(read: MarkdownLines): Outline {
  const out: Outline = { title: null, headings: [], sectionStarts: [], unread: [] };
  for (const { index, depth, text } of read.headings) {
    if (out.title === null && depth === 1) out.title = text;
    const heading = depth >= 2 && depth <= 4 ? readHeading(depth, text, index) : null;
    if (heading) out.headings.push(heading);
    // A level-1 heading is the document's title (`# Phase 3: …` in a file that expands one phase).
    else if (depth >= 2 && unreadPhaseHeading(text))
      out.unread.push({
        line: index + 1,
        code: "PLAN_UNREADABLE",
        message: `"${"#".repeat(depth)} ${text}" reads as a phase heading but is not one Baton can read (expected \`### Phase 1: Name [NOT STARTED]\`, at depth 2 to 4); fix the heading so that no phase is left out`,
      });
    if (!heading && depth <= 2) out.sectionStarts.push(index);
  }
  return out;
}

const ATX = /^ {0,3}(#{2,4})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/;

/**
 * Phase headings a code block swallowed because its author's fences do not pair as CommonMark pairs them:
 * a ```` ``` ```` block holding a line ```` ```lang ```` (which the author meant as a new block, so the one
 * before had ended) runs on over the phases after it. Read as code they would be left out of the plan and
 * the task completed without them; they are named instead. A block that quotes a plan template with a
 * longer outer fence (```` ```` ````) nests its inner blocks as intended and is not one of these.
 */
function swallowedPhases(read: MarkdownLines, lines: readonly string[]): PlanProblem[] {
  const out: PlanProblem[] = [];
  for (const block of read.codeBlocks) {
    if (!block.top || block.fence === "") continue;
    const char = block.fence[0] === "~" ? "~" : "`";
    const opener = new RegExp(`^ {0,3}\\${char}{${block.fence.length},}[ \\t]*[^\\s${char}]`);
    const inner = lines.slice(block.from + 1, block.to).findIndex((line) => opener.test(line));
    if (inner === -1) continue;
    for (let i = block.from + 1; i < block.to; i++) {
      const atx = ATX.exec(lines[i] ?? "");
      if (!atx || !readHeading(atx[1]?.length ?? 3, atx[2] ?? "", i)) continue;
      out.push({
        line: i + 1,
        code: "PLAN_UNREADABLE",
        message: `this phase heading is inside the code block that opens at line ${block.from + 1} and, as CommonMark reads it, ${block.to >= lines.length ? "never closes" : `closes at line ${block.to}`}: line ${block.from + inner + 2} opens no new block (a fence closes only with a bare fence indented at most 3 spaces); close the block where you meant it to end, so that no phase is left out`,
      });
    }
  }
  return out;
}

/**
 * Reads a plan of either style, as CommonMark (shared/markdown-lines.ts): a heading is a phase only when
 * it is one of the document's own headings, never a line inside code, HTML or a quote. Every problem is
 * collected (with its 1-based line) rather than stopping at the first; on failure `partial` carries what
 * could be read so callers can still show it. Warnings (see ParseResult) come back either way.
 */
export function parsePlan(path: string, text: string): ParseResult {
  const lines = text.split(/\r?\n/);
  const read = markdownLines(text);
  const fenced = read.roles.map(isQuoted);
  const { title, headings, sectionStarts, unread } = outline(read);

  const problems: PlanProblem[] = [...unread, ...swallowedPhases(read, lines)];
  const warnings: PlanProblem[] = [];
  const drafts: PhaseDraft[] = [];
  headings.forEach((heading, k) => {
    const nextPhase = headings[k + 1]?.index ?? lines.length;
    const nextSection = sectionStarts.find((s) => s > heading.index) ?? lines.length;
    const end = Math.min(nextPhase, nextSection) - 1;
    if (heading.carried) drafts.push(...carriedPhases(heading, end).map((phase) => ({ phase, groups: [] })));
    else drafts.push(readPhase(lines, fenced, heading, end, problems));
  });
  const phases = drafts.map((d) => d.phase);
  if (phases.length === 0 && unread.length === 0) {
    problems.push({
      line: 1,
      message: "no phases: expected headings like `### Phase 1: Name [NOT STARTED]`",
    });
  }
  const duplicates = resolveReferences(drafts, problems, warnings);
  const status = readPlanStatus(lines, fenced, headings[0]?.index ?? lines.length);
  const plan: Plan = {
    path,
    title,
    style: detectStyle(lines, fenced, phases, status),
    status,
    phases,
    duplicates,
  };
  const byLine = (a: PlanProblem, b: PlanProblem) => a.line - b.line;
  warnings.sort(byLine);
  if (problems.length === 0) return { ok: true, plan, warnings };
  problems.sort(byLine);
  return { ok: false, problems, warnings, partial: plan };
}
