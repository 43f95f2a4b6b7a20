import type { GitBaseline } from "../../state/index.js";
import type { Run } from "../run/index.js";

/** What GATE IN has established before its store write; each step adds what it found. */
export interface GateInContext {
  readonly run: Run;
  /** The work tree now, for the diff evidence at GATE OUT; null outside git. */
  baseline: GitBaseline | null;
}

/** `code`: a refusal of its own kind (APPROVAL_STALE); GATE_IN_REFUSED when absent. */
export type GateInStepResult = { ok: true } | { ok: false; message: string; code?: GateInRefusalCode };

export type GateInRefusalCode = "APPROVAL_REQUIRED" | "APPROVAL_STALE" | "APPROVAL_REJECTED";

/**
 * One check or observation of GATE IN, made before the store write that opens the run: steps run in
 * order and the first refusal wins, so nothing is written and no agent is paid to work.
 */
export type GateInStep = (ctx: GateInContext) => GateInStepResult | Promise<GateInStepResult>;
