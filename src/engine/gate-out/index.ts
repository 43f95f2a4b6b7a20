/** GATE OUT: the gates in order (gate-out-list.ts), the verdict tree and the project's checks. */

export { checkArtifacts } from "./check-artifacts.js";
export { checkRunResult, gateOutInput } from "./check-run-result.js";
export { checkStatus } from "./check-status.js";
export {
  CHECK_GATES,
  GATE_OUT,
  type GateOutVerdict,
  OPERATION_ONLY_GATES,
  runGateOut,
} from "./gate-out-list.js";
export type { ChangeEvidence, Gate, VerifiedArtifact } from "./gate-types.js";
export { refuse } from "./gate-types.js";
export { runOperationChecks } from "./operation-checks.js";
export type { CheckRun } from "./project-checks.js";
export { checksFor, runChecks } from "./project-checks.js";
export { recordResult } from "./record-result.js";
export { type Rerun, rerunChecks } from "./rerun-checks.js";
export type { WorkSnapshot } from "./result-snapshot.js";
export {
  agentChanged,
  changedSinceSnapshot,
  snapshotDelta,
  snapshotWork,
  type WorkPaths,
  workPathspecs,
} from "./result-snapshot.js";
export { ReturnMetadata } from "./return-metadata.js";
export { planVerdictTree, type VerdictTreePlan, withVerdictTree } from "./verdict-tree.js";
