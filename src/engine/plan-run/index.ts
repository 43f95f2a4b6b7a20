/** A plan's waves and phases, each phase through the phase barrier (GATE OUT less its whole-operation gates). */
export type { PhaseVerdict } from "./phase-transition.js";
export { prunePhaseWorktrees } from "./phase-worktree.js";
export type { PhaseRecord } from "./record-phase.js";
export { countComplete, renderRunSummary, runMetadata } from "./rollup.js";
export { type PhaseReport, type PlanProgressEvent, type PlanRunReport, runPlan } from "./run-plan.js";
