/** Many tasks at once: `baton run` on one machine, and (queue/) through PostgreSQL workers. */
export {
  type BatchProgress,
  type BatchReport,
  type BatchRequest,
  type BatchRun,
  type RunOne,
  runBatch,
  runLocally,
  type Selection,
  selectTasks,
} from "./local.js";
export { machineName, redact } from "./queue/boss.js";
export { type QueueRequest, runQueued } from "./queue/coordinator.js";
export { runWorker, type WorkerReport, type WorkerRequest } from "./queue/worker.js";
export {
  type BatchTask,
  nextOperation,
  parseTaskRanges,
  type RunTarget,
  type Schedule,
  schedule,
  type Waiting,
  withinTarget,
} from "./schedule.js";
