/** The checkpoints of every run, in pipeline order: the journal's steps, an error's place, recovery's reading. */
export const CHECKPOINTS = ["GATE_IN", "DELEGATE", "GATE_OUT", "COMMIT"] as const;
export type Checkpoint = (typeof CHECKPOINTS)[number];
