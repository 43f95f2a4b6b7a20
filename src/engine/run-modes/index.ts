/** Headless, in-session, queued and dry runs: the same pipeline, driven differently. */
export { type DryRunPlan, planOperation } from "./dry-run.js";
export { type OperationRequest, type ProgressEvent, runOperation } from "./headless-run.js";
export { closeSessionGate, openSessionGate, type SessionGateIn, type SessionGateOut } from "./in-session.js";
export type { OperationReport } from "./operation-report.js";
export { closeQueuedGate, openQueuedGate, type QueuedGateIn, type QueuedGateOut } from "./queued.js";
