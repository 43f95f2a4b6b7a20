/** One drive of the checkpoint machine: the executor and the effect handlers that bind a drive's context to each checkpoint. */
export type { Driven, RunIO } from "./drive-context.js";
export { drive } from "./executor.js";
