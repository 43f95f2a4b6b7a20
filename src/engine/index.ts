/** The checkpoint engine: operations through GATE IN → DELEGATE → GATE OUT → COMMIT, and recovery. */

export { type ApprovalOutcome, type ApprovalRequest, recordApproval } from "./approval/index.js";
export { commitAcceptance } from "./commit/index.js";
export {
  CHECK_GATES,
  type CheckRun,
  checksFor,
  type GateOutVerdict,
  planVerdictTree,
  type Rerun,
  ReturnMetadata,
  rerunChecks,
  runChecks,
  runGateOut,
  type VerdictTreePlan,
  withVerdictTree,
} from "./gate-out/index.js";
export type {
  PhaseRecord,
  PhaseReport,
  PhaseVerdict,
  PlanProgressEvent,
  PlanRunReport,
} from "./plan-run/index.js";
export { type RecoveryAction, recoverOpenRuns } from "./recovery/index.js";
export {
  changedSince,
  ISOLATE_MODES,
  type IsolateMode,
  protectedPaths,
  readBaseline,
  routePhases,
  sandboxPolicy,
  staleIndexLock,
} from "./run/index.js";
export {
  closeQueuedGate,
  closeSessionGate,
  type DryRunPlan,
  type OperationReport,
  type OperationRequest,
  openQueuedGate,
  openSessionGate,
  type ProgressEvent,
  planOperation,
  type QueuedGateIn,
  type QueuedGateOut,
  runOperation,
  type SessionGateIn,
  type SessionGateOut,
} from "./run-modes/index.js";
export type { DelegationOutcome, RunResult } from "./transition.js";
