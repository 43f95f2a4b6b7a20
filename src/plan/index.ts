export {
  type DependencyGroup,
  type ParsedDependencies,
  parseBulletDependencies,
  parseBulletDependencyGroups,
  parseLineDependencies,
} from "./dependencies.js";
export {
  doneMarker,
  type EditResult,
  type PlanOutcome,
  type PlanStatusEdit,
  planStatusMarker,
  setPhaseCheckboxes,
  setPhaseMarker,
  setPlanStatus,
  tickPhaseCheckboxes,
} from "./edit.js";
export { normaliseStatus, parsePlan } from "./parse.js";
export { planContent, planContentHash } from "./plan-content.js";
export {
  type Checkboxes,
  type ParseResult,
  PHASE_STATUSES,
  type Phase,
  type PhaseId,
  type PhaseStatus,
  type Plan,
  type PlanProblem,
  type PlanStatus,
  type PlanStyle,
  type WavesResult,
} from "./plan-types.js";
export { type PhaseRoute, type PhaseRouteOptions, type PhaseRouteRule, routePhase } from "./route.js";
export { computeWaves, type DependencyReading, orderedPhases, planWaves, type WaveInput } from "./waves.js";
