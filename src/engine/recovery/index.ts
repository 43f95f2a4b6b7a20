/** A dead run: record what verifies, roll back the rest, settle the index, put leftovers aside. */
export { type RecoveryAction, recoverCheckpoint, recoverOpenRuns } from "./recover-checkpoint.js";
