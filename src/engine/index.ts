/** The checkpoint engine: operations through GATE IN → DELEGATE → GATE OUT → COMMIT, and recovery. */

export {
  type BatchTask,
  nextOperation,
  parseTaskRanges,
  type RunTarget,
  type Schedule,
  schedule,
  type Waiting,
  withinTarget,
} from "./batch.js";
export { type CheckRun, checksFor, runChecks } from "./checks.js";
export { type DryRunPlan, planOperation } from "./dry-run.js";
export { Evidence, evidencePath, sha256Of } from "./evidence.js";
export { type OperationReport, type OperationRequest, type ProgressEvent, runOperation } from "./execute.js";
export { type GateOutVerdict, runGateOut } from "./gate-out.js";
export type { GateOperation } from "./gates/types.js";
export { changedSince, readBaseline, staleIndexLock } from "./git-baseline.js";
export type { DelegationOutcome, RunResult } from "./machine.js";
export type { PhaseVerdict } from "./phases/machine.js";
export type { PhaseRecord } from "./phases/record.js";
export type { PhaseReport, PlanProgressEvent, PlanRunReport } from "./phases/run.js";
export { closeQueuedGate, openQueuedGate, type QueuedGateIn, type QueuedGateOut } from "./queue-gates.js";
export { type RecoveryAction, recoverOpenRuns } from "./recover.js";
export { ReturnMetadata } from "./return-metadata.js";
export {
  closeSessionGate,
  openSessionGate,
  type SessionGateIn,
  type SessionGateOut,
} from "./session-gates.js";
export { type Completion, DONE_STATUSES, type VerifyReport, verifyHistory } from "./verify.js";
