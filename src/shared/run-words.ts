/** The words of a run, each list once: schemas, types, the journal and the event stream derive from them. */

/** The checkpoints of every run, in pipeline order: the journal's steps, an error's place, recovery's reading. */
export const CHECKPOINTS = ["GATE_IN", "DELEGATE", "GATE_OUT", "COMMIT"] as const;
export type Checkpoint = (typeof CHECKPOINTS)[number];

/** How a run is driven: by Baton's runner (`headless`), or by a live host session between gate-in and gate-out. */
export const RUN_MODES = ["headless", "session"] as const;
export type RunMode = (typeof RUN_MODES)[number];

/** What GATE OUT accepted: the work done, or partly done (resumable from where it stopped). */
export const ACCEPTED_OUTCOMES = ["done", "partial"] as const;
export type AcceptedOutcome = (typeof ACCEPTED_OUTCOMES)[number];

/** A step's two records in the journal and the progress: written before it starts and after it ends. */
export type StepBoundary = "begin" | "end";
