export { normaliseStatus, parsePlan } from "./parse.js";
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
  type WavesResult,
} from "./types.js";
export { computeWaves, type WaveInput } from "./waves.js";
