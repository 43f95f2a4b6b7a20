import type { ApprovalRefusalCode } from "../../approvals/index.js";
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

/** A refusal of GATE IN's own kind, beside GATE_IN_REFUSED: the plan's approval. */
export type GateInRefusalCode = ApprovalRefusalCode;

/**
 * One check or observation of GATE IN, made before the store write that opens the run: steps run in
 * order and the first refusal wins, so nothing is written and no agent is paid to work.
 */
export type GateInStep = (ctx: GateInContext) => GateInStepResult | Promise<GateInStepResult>;
