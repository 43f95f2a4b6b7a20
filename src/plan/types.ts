/**
 * A plan file read into phases, for both plan styles (format reference 12.1-12.4, hard-barrier 1.3):
 * style A (task system, `- **Dependencies:** Phase 1`) and style B (hard-barrier, `dependencies: [1]`).
 */

/** A phase number as written: digits with an optional letter suffix (`0`, `3`, `2a`). */
export type PhaseId = string;

export const PHASE_STATUSES = [
  "not_started",
  "in_progress",
  "complete",
  "partial",
  "blocked",
  "skipped",
  "deferred",
  "superseded",
  "not_applicable",
] as const;

/** `unknown` keeps a marker Baton has no meaning for; the raw text stays in `marker`. */
export type PhaseStatus = (typeof PHASE_STATUSES)[number] | "unknown";

export interface Checkboxes {
  done: number;
  total: number;
}

export interface Phase {
  id: PhaseId;
  name: string;
  /** 1-based line of the heading. */
  line: number;
  /** Last line of the phase body (1-based, inclusive). */
  endLine: number;
  depth: 2 | 3 | 4;
  /** Marker text inside the brackets, as written; null on legacy headings without one. */
  marker: string | null;
  status: PhaseStatus | null;
  dependencies: PhaseId[];
  /** Line of the dependencies line; null when the phase has none (no dependencies). */
  dependenciesLine: number | null;
  implementer: "lean" | "software" | null;
  leanFiles: string[];
  checkboxes: Checkboxes;
}

export interface PlanStatus {
  marker: string;
  status: PhaseStatus;
  line: number;
}

export interface Plan {
  path: string;
  title: string | null;
  /** The metadata `- **Status**: [..]` line before the first phase. */
  status: PlanStatus | null;
  phases: Phase[];
}

export interface PlanProblem {
  line: number;
  message: string;
}

/** On failure `partial` is what could still be read, for display; it must not drive execution. */
export type ParseResult = { ok: true; plan: Plan } | { ok: false; problems: PlanProblem[]; partial: Plan };

export type WavesResult =
  | { ok: true; waves: PhaseId[][] }
  | { ok: false; reason: "cycle"; cycle: PhaseId[] }
  | { ok: false; reason: "missing"; phase: PhaseId; dependsOn: PhaseId };
