export type { AbandonResult, ArchiveResult, RecoverResult } from "./archive-ops.js";
export {
  abandonTasks,
  archiveFinished,
  findTaskFolder,
  recoverTasks,
  sweepTaskFolders,
} from "./archive-ops.js";
export {
  ARTIFACT_DIRS,
  type ArtifactKind,
  latestPlanFile,
  nextArtifactPath,
  type PlannedArtifact,
  taskFolderPath,
} from "./artifacts.js";
export { recordAudit } from "./audit.js";
export {
  appendDelegationEvents,
  DelegationEvent,
  type DelegationView,
  delegationLogPath,
  emptyDelegationView,
  type FileRecord,
  folderFiles,
  hashFile,
  observeFolders,
  readDelegation,
} from "./delegation-log.js";
export { type Finding, type FindingCode, runDoctorChecks } from "./doctor-checks.js";
export { type FixReport, fixFindings } from "./doctor-fix.js";
export { rememberOffsets } from "./entry-offsets.js";
export { appendError, type ErrorFilter, listErrors, type NewError } from "./errors-log.js";
export { commitFiles, recoverInterruptedCommit } from "./journal.js";
export {
  assertVerdict,
  checkManualTransition,
  checkOperationStart,
  IN_PROGRESS_STATUSES,
  MANUAL_TRANSITIONS,
  OPERATION_RULES,
  OPERATIONS,
  type Operation,
  type TransitionVerdict,
} from "./lifecycle.js";
export { type ArtifactLink, linkArtifacts } from "./link-artifacts.js";
export {
  endSession,
  hostPid,
  keyReachableBy,
  type LiveSession,
  liveSessions,
  registerSession,
  runningSession,
} from "./live-sessions.js";
export { loadArchive, loadErrors, loadState, loadTodo, readText } from "./load-store.js";
export { acquireLock, isProcessAlive, type LockHolder, ownProcessStarted, type ReleaseLock } from "./lock.js";
export {
  detectLanguage,
  normalizeTitle,
  PRIORITIES,
  parseTaskNumbers,
  slugify,
  titleFromSlug,
} from "./naming.js";
export {
  checkpointPath,
  GitBaseline,
  isCheckpointProcessAlive,
  OpenCheckpoint,
  openCheckpointNumbers,
  readOpenCheckpoint,
  sessionActive,
  sessionCheckpoint,
} from "./open-checkpoint.js";
export { type SpecsPaths, specsPaths, storePrefix, TASK_FOLDER, taskFolderName } from "./paths.js";
export {
  adoptable,
  describeForeignChanges,
  type ForeignChange,
  findForeignChanges,
  resealFile,
  restoreSealed,
  SealManifest,
  sealedContent,
  sealedFiles,
} from "./seal.js";
export { applyStatus, autoCompleteExpanded, changeStatus, type StatusChange } from "./status-changes.js";
export {
  type HeldStore,
  holdStore,
  mutateStore,
  previewStore,
  readSettledStore,
  readStore,
  requireStore,
  type Snapshot,
  type StoreContext,
  settleInterruptedWrite,
  storeContext,
  sweepInterruptedWrites,
  Transaction,
} from "./store.js";
export { requireStoreCheckedOut } from "./store-checkout.js";
export {
  ArchivedTask,
  ArtifactEntry,
  ArtifactRecord,
  ErrorEntry,
  StateFile,
  TaskEntry,
} from "./store-schema.js";
export { peekStoreSummary, readStoreSummary, type StoreSummary, type TaskRow } from "./store-summary.js";
export { readTaskDetail } from "./task-detail.js";
export { editTask, type TaskEdit } from "./task-edit.js";
export { requireTask, requireTodoEntry } from "./task-lookup.js";
export { addTask, expandTask, type NewTaskInput, type SubtaskInput } from "./task-ops.js";
export {
  markerToStatus,
  statusToMarker,
  TASK_STATUSES,
  type TaskStatus,
  TERMINAL_STATUSES,
} from "./task-status.js";
export {
  learnTaskType,
  setTaskType,
  type TaskTypeConvention,
  taskTypeOf,
} from "./task-type.js";
export {
  entries,
  findEntry,
  parseTodo,
  renderTodo,
  type TodoDocument,
  type TodoEntry,
} from "./todo-document.js";
export { setFrontmatterNextNumber } from "./todo-frontmatter.js";
export {
  type ArtifactView,
  markIrregular,
  normalizeArtifactType,
  type TaskView,
  taskView,
  taskViews,
  todoIndex,
} from "./views.js";
