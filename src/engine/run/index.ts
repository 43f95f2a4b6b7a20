/** The run: its value, prepared once (session, task, operation, route, folder, plan), and the services every checkpoint uses. Imports no other folder of engine/. */
export { BudgetGuard, type BudgetStop, budgetLimits } from "./budget-guard.js";
export { historyChanges } from "./git-history.js";
export {
  closePostflight,
  isControlFile,
  MARKER_FILE,
  METADATA_FILE,
  openPostflight,
} from "./postflight-marker.js";
export { isSettled, type PreparedPlan, routePhases } from "./prepare-plan.js";
export {
  evidenceSubject,
  type HeadlessExecution,
  type HeadlessRequest,
  type HeadlessRun,
  ISOLATE_MODES,
  type IsolateMode,
  prepareHeadlessRun,
  prepareOpenRun,
  prepareRun,
  type Run,
  runContext,
  runJournal,
  runPrompt,
} from "./prepare-run.js";
export {
  frozenFolders,
  protectedPaths,
  repositoryProtectedPaths,
  runSandbox,
  sandboxPolicy,
} from "./sandbox-policy.js";
export {
  type Checkpoint,
  type JournalRecord,
  lastStep,
  readJournal,
  SessionJournal,
  sessionJournalPath,
} from "./session-journal.js";
export { fingerprint } from "./settings-fingerprint.js";
export { blobId, changedSince, readBaseline, staleIndexLock } from "./work-tree-baseline.js";
