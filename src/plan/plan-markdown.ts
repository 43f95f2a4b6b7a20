import { PHASE_STATUSES, type PhaseStatus } from "./plan-types.js";

/**
 * Format reference 12.4's heading regex, widened for two forms the real archive holds: decimal phase
 * numbers (`### Phase 6.5:`) and a qualified marker (`[PARTIAL - AXIOMATIZED]`).
 */
export const PHASE_HEADING =
  /^(#{2,4}) Phase (\d+(?:\.\d+)?[a-z]?)\s*:\s*(.*?)(?:\s*\[([A-Z][A-Z _-]*)\])?\s*$/;
/**
 * A revised plan's summary of phases kept from an earlier version: `### Phases 1-3: [COMPLETED in v1]`.
 * The marker is required (and may carry lower-case words), so that a section title such as
 * `### Phases 7-10 Are Out of Main Build Scope` is not read as phases.
 */
export const CARRIED_HEADING =
  /^(#{2,4}) Phases (\d+)\s*(?:-|–|to)\s*(\d+)\s*:\s*(.*?)\s*\[([A-Z][^\]]*)\]\s*$/;
export const SECTION_HEADING = /^## /;
export const CHECKBOX = /^\s*- \[([ xX])\] /;
/** A marker Baton can write and read back on a phase heading. */
export const MARKER = /^[A-Z][A-Z _-]*$/;
const FENCE = /^\s*(`{3,}|~{3,})/;

/** COMPLETE (style B) and COMPLETED (style A) are the same state. */
export function normaliseStatus(marker: string): PhaseStatus {
  // `PARTIAL - AXIOMATIZED`, `PARTIAL] - Resume at …`: the state is the part before the dash.
  const head = (marker.split(/\s+-\s+/)[0] ?? "").trim();
  const known = statusOf(head);
  if (known !== "unknown") return known;
  // `COMPLETED in v1`: the state is the leading upper-case words.
  const words = /^[A-Z][A-Z_]*(?: [A-Z][A-Z_]*)*(?=\s|$)/.exec(head)?.[0];
  return words === undefined ? "unknown" : statusOf(words);
}

function statusOf(text: string): PhaseStatus {
  const key = text.toUpperCase();
  if (key === "COMPLETE" || key === "COMPLETED") return "complete";
  const snake = key.toLowerCase().replace(/[\s-]+/g, "_");
  return (PHASE_STATUSES as readonly string[]).includes(snake) ? (snake as PhaseStatus) : "unknown";
}

/** Lines inside fenced code blocks: a plan quoting a plan template must not grow phantom phases. */
export function fencedLines(lines: readonly string[]): boolean[] {
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

/** A phase heading (`ids` has one id) or a carried range heading (`ids` from the range). */
export interface Heading {
  index: number;
  depth: 2 | 3 | 4;
  ids: string[];
  name: string;
  marker: string | null;
  carried: boolean;
}

export function readHeading(line: string, index: number): Heading | null {
  const phase = PHASE_HEADING.exec(line);
  if (phase) {
    return {
      index,
      depth: (phase[1] ?? "###").length as 2 | 3 | 4,
      ids: [phase[2] ?? ""],
      name: phase[3] ?? "",
      marker: phase[4]?.trim() ?? null,
      carried: false,
    };
  }
  const range = CARRIED_HEADING.exec(line);
  if (!range) return null;
  const from = Number(range[2]);
  const to = Number(range[3]);
  if (to < from) return null;
  return {
    index,
    depth: (range[1] ?? "###").length as 2 | 3 | 4,
    ids: Array.from({ length: to - from + 1 }, (_, k) => String(from + k)),
    name: range[4] || `Phases ${from}-${to}`,
    marker: range[5]?.trim() ?? null,
    carried: true,
  };
}
