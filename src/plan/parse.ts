import {
  BULLET_DEPENDENCIES,
  LINE_DEPENDENCIES,
  parseBulletDependencies,
  parseLineDependencies,
} from "./dependencies.js";
import {
  type ParseResult,
  PHASE_STATUSES,
  type Phase,
  type PhaseStatus,
  type Plan,
  type PlanProblem,
  type PlanStatus,
} from "./types.js";

/**
 * Format reference 12.4's heading regex, widened for two forms the real archive holds: decimal phase
 * numbers (`### Phase 6.5:`) and a qualified marker (`[PARTIAL - AXIOMATIZED]`).
 */
const PHASE_HEADING = /^(#{2,4}) Phase (\d+(?:\.\d+)?[a-z]?)\s*:\s*(.*?)(?:\s*\[([A-Z][A-Z _-]*)\])?\s*$/;
const SECTION_HEADING = /^## /;
const CHECKBOX = /^\s*- \[([ xX])\] /;
const PLAN_STATUS = /^\s*[-*]\s+\*\*Status(?::\*\*|\*\*\s*:)\s*\[([^\]]+)\]/;
const STYLE_B_FIELD = /^(implementer|lean_file)\s*:\s*(.*)$/;
const FENCE = /^\s*(`{3,}|~{3,})/;

/** COMPLETE (style B) and COMPLETED (style A) are the same state. */
export function normaliseStatus(marker: string): PhaseStatus {
  // `PARTIAL - AXIOMATIZED`, `PARTIAL] - Resume at …`: the state is the part before the dash.
  const key = (marker.split(/\s+-\s+/)[0] ?? "").trim().toUpperCase();
  if (key === "COMPLETE" || key === "COMPLETED") return "complete";
  const snake = key.toLowerCase().replace(/[\s-]+/g, "_");
  return (PHASE_STATUSES as readonly string[]).includes(snake) ? (snake as PhaseStatus) : "unknown";
}

/** Lines inside fenced code blocks: a plan quoting a plan template must not grow phantom phases. */
function fencedLines(lines: readonly string[]): boolean[] {
  const fenced: boolean[] = [];
  let open: string | null = null;
  for (const line of lines) {
    const fence = FENCE.exec(line)?.[1];
    if (open === null) {
      fenced.push(false);
      if (fence) open = fence;
    } else {
      fenced.push(true);
      if (fence !== undefined && fence[0] === open[0] && fence.length >= open.length && line.trim() === fence)
        open = null;
    }
  }
  return fenced;
}

interface Heading {
  index: number;
  depth: 2 | 3 | 4;
  id: string;
  name: string;
  marker: string | null;
}

function readPhase(
  lines: readonly string[],
  fenced: readonly boolean[],
  heading: Heading,
  end: number,
  problems: PlanProblem[],
): Phase {
  const phase: Phase = {
    id: heading.id,
    name: heading.name,
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
    const parsed = bullet ? parseBulletDependencies(value) : parseLineDependencies(value);
    phase.dependenciesLine = i + 1;
    if (parsed === null) {
      problems.push({
        line: i + 1,
        message: `Phase ${phase.id}: cannot read dependencies "${value.trim()}" (expected None, Phase N, … or [N, N])`,
      });
    } else {
      phase.dependencies = parsed;
    }
  }
  return phase;
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

function checkReferences(phases: readonly Phase[], problems: PlanProblem[]): void {
  const firstLine = new Map<string, number>();
  for (const phase of phases) {
    const seen = firstLine.get(phase.id);
    if (seen === undefined) firstLine.set(phase.id, phase.line);
    else {
      problems.push({
        line: phase.line,
        message: `duplicate Phase ${phase.id} (first defined on line ${seen})`,
      });
    }
  }
  for (const phase of phases) {
    for (const dep of phase.dependencies) {
      if (dep === phase.id) {
        problems.push({
          line: phase.dependenciesLine ?? phase.line,
          message: `Phase ${phase.id} depends on itself`,
        });
      } else if (!firstLine.has(dep)) {
        problems.push({
          line: phase.dependenciesLine ?? phase.line,
          message: `Phase ${phase.id} depends on Phase ${dep}, which is not in the plan`,
        });
      }
    }
  }
}

/**
 * Reads a plan of either style. Every problem is collected (with its 1-based line) rather than stopping
 * at the first; on failure `partial` carries what could be read so callers can still show it.
 */
export function parsePlan(path: string, text: string): ParseResult {
  const lines = text.split(/\r?\n/);
  const fenced = fencedLines(lines);
  const headings: Heading[] = [];
  const sectionStarts: number[] = [];
  let title: string | null = null;
  lines.forEach((line, index) => {
    if (fenced[index]) return;
    if (title === null && line.startsWith("# ")) title = line.slice(2).trim();
    const match = PHASE_HEADING.exec(line);
    if (match) {
      headings.push({
        index,
        depth: (match[1] ?? "###").length as 2 | 3 | 4,
        id: match[2] ?? "",
        name: match[3] ?? "",
        marker: match[4]?.trim() ?? null,
      });
    } else if (SECTION_HEADING.test(line)) {
      sectionStarts.push(index);
    }
  });

  const problems: PlanProblem[] = [];
  const phases = headings.map((heading, k) => {
    const nextPhase = headings[k + 1]?.index ?? lines.length;
    const nextSection = sectionStarts.find((s) => s > heading.index) ?? lines.length;
    return readPhase(lines, fenced, heading, Math.min(nextPhase, nextSection) - 1, problems);
  });
  if (phases.length === 0) {
    problems.push({
      line: 1,
      message: "no phases: expected headings like `### Phase 1: Name [NOT STARTED]`",
    });
  }
  checkReferences(phases, problems);

  const plan: Plan = {
    path,
    title,
    status: readPlanStatus(lines, fenced, headings[0]?.index ?? lines.length),
    phases,
  };
  if (problems.length === 0) return { ok: true, plan };
  problems.sort((a, b) => a.line - b.line);
  return { ok: false, problems, partial: plan };
}
