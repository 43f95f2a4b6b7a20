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
  /**
   * Declared by a range summary heading (`### Phases 1-3: [COMPLETED in v1]`): a phase of an earlier
   * plan version, there so that dependencies on it resolve. Never runnable and never edited; it has no
   * dependencies, fields or checkboxes of its own.
   */
  carried: boolean;
  /** 1-based line of the heading. */
  line: number;
  /** Last line of the phase body (1-based, inclusive). */
  endLine: number;
  depth: number;
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

/**
 * `hard-barrier` when the plan has a `## Metadata` section, a `dependencies:` / `implementer:` /
 * `lean_file:` phase line or a `[COMPLETE]` marker (hard-barrier 1.2-1.4); `task` otherwise. The style
 * decides which markers Baton writes back (`COMPLETED` or `COMPLETE`, see edit.ts).
 */
export type PlanStyle = "task" | "hard-barrier";

export interface Plan {
  path: string;
  title: string | null;
  style: PlanStyle;
  /** The metadata `- **Status**: [..]` line before the first phase. */
  status: PlanStatus | null;
  phases: Phase[];
  /** Ids defined more than once, in file order; the first definition of each is the one that counts. */
  duplicates: PhaseId[];
}

export interface PlanProblem {
  line: number;
  message: string;
  /** A heading meant as a phase that cannot be read: the plan would run short (PLAN_UNREADABLE). */
  code?: "PLAN_UNREADABLE";
}

/**
 * Warnings never fail a parse: things the real archive holds that Baton reads one defined way (a duplicate
 * phase, a dependency on a completed phase of an earlier plan version). On failure `partial` is what
 * could still be read, for display; it must not drive execution.
 */
export type ParseResult =
  | { ok: true; plan: Plan; warnings: PlanProblem[] }
  | { ok: false; problems: PlanProblem[]; warnings: PlanProblem[]; partial: Plan };

export type WavesResult =
  | { ok: true; waves: PhaseId[][] }
  | { ok: false; reason: "cycle"; cycle: PhaseId[] }
  | { ok: false; reason: "missing"; phase: PhaseId; dependsOn: PhaseId };
