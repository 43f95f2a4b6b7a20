/** The checkpoint engine: operations through GATE IN → DELEGATE → GATE OUT → COMMIT, and recovery. */

export { type ApprovalOutcome, type ApprovalRequest, recordApproval } from "./approval/record-approval.js";
export { commitAcceptance } from "./commit/accept-commits.js";
export {
  CHECK_GATES,
  type GateOutVerdict,
  planVerdictTree,
  runGateOut,
  type VerdictTreePlan,
  withVerdictTree,
} from "./gate-out/index.js";
export { type CheckRun, checksFor, runChecks } from "./gate-out/project-checks.js";
export { type Rerun, rerunChecks } from "./gate-out/rerun-checks.js";
export { ReturnMetadata } from "./gate-out/return-metadata.js";
export type { PhaseVerdict } from "./plan-run/phase-transition.js";
export { routePhases } from "./plan-run/prepare-plan.js";
export type { PhaseRecord } from "./plan-run/record-phase.js";
export type { PhaseReport, PlanProgressEvent, PlanRunReport } from "./plan-run/run-plan.js";
export { type RecoveryAction, recoverOpenRuns } from "./recovery/recover-checkpoint.js";
export { protectedPaths, sandboxPolicy } from "./run/sandbox-policy.js";
export { changedSince, readBaseline, staleIndexLock } from "./run/work-tree-baseline.js";
export { type DryRunPlan, planOperation } from "./run-modes/dry-run.js";
export {
  type OperationReport,
  type OperationRequest,
  type ProgressEvent,
  runOperation,
} from "./run-modes/headless-run.js";
export {
  closeSessionGate,
  openSessionGate,
  type SessionGateIn,
  type SessionGateOut,
} from "./run-modes/in-session.js";
export {
  closeQueuedGate,
  openQueuedGate,
  type QueuedGateIn,
  type QueuedGateOut,
} from "./run-modes/queued.js";
export type { DelegationOutcome, RunResult } from "./transition.js";
