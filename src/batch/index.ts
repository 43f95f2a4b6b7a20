/** Many tasks at once: `baton run` on one machine, and (queue/) through PostgreSQL workers. */
export {
  type BatchProgress,
  type BatchReport,
  type BatchRequest,
  type BatchRun,
  runBatch,
  type Selection,
  selectTasks,
} from "./local.js";
