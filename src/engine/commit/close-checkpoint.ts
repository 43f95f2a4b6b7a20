import { checkpointPath, type Transaction } from "../../state/index.js";

/** The write after the recorded result's commit landed (or was not wanted): the checkpoint closes. */
export function closeCheckpoint(tx: Transaction, taskNumber: number): void {
  tx.deleteFile(checkpointPath(tx.paths.internalDir, taskNumber));
}
