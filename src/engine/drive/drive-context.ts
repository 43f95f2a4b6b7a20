import type { HeldStore } from "../../state/index.js";
import type { Delegation } from "../delegate/index.js";
import type { GateOutVerdict } from "../gate-out/index.js";
import type { ProgressEvent } from "../progress-event.js";
import type { Run, SessionJournal } from "../run/index.js";
import type { RunState } from "../transition.js";

export interface RunIO {
  journal: SessionJournal;
  emit?: ((event: ProgressEvent) => void) | undefined;
  commit: boolean;
}

/** What a drive leaves behind for its caller. */
export interface Driven {
  state: RunState;
  /** Where GATE IN planned the artifact ("" when the drive started after GATE IN). */
  artifactPath: string;
  /** The task's status right after the last store write of the drive. */
  status: string | undefined;
  verdict?: Extract<GateOutVerdict, { ok: true }>;
}

/** One drive of the checkpoint machine, as every effect handler sees it. */
export interface DriveContext {
  readonly run: Run;
  readonly io: RunIO;
  readonly delegation: Delegation;
  /** The store write's command line, for the lock's holder and the audit. */
  readonly command: string;
  /** Whether this drive commits: the caller asked for it and the configuration allows it. */
  readonly commitWanted: boolean;
  readonly driven: Driven;
  /** The store lock, held from the result's record to its commit. */
  held: HeldStore | undefined;
}
