import type { DelegationView } from "../../state/index.js";
import type { ReturnMetadata } from "../return-metadata.js";

/** Every way GATE OUT can refuse an agent's result; each has its entry in docs/errors.md. */
export type GateOutCode =
  | "META_MISSING"
  | "META_INVALID_JSON"
  | "META_SCHEMA"
  | "META_SESSION_MISMATCH"
  | "META_STATUS_COMPLETED"
  | "META_STATUS_IN_PROGRESS"
  | "META_STATUS_NOT_ALLOWED"
  | "AGENT_FAILED"
  | "AGENT_BLOCKED"
  | "AGENT_REPORTED_ERROR"
  | "ARTIFACT_MISSING"
  | "ARTIFACT_OUTSIDE_TASK"
  | "ARTIFACT_EMPTY"
  | "ARTIFACT_TOO_SMALL"
  | "ARTIFACT_NONE"
  | "SUMMARY_MISSING"
  | "SUMMARY_TOO_SMALL"
  | "SUMMARY_UNCHANGED"
  | "FILE_OUTSIDE_REPO"
  | "WORK_REMAINING_MISSING"
  | "PHASES_FAILED"
  | "AGENT_NOT_RUN"
  | "NOT_WRITTEN_BY_AGENT";

export type GateOperation = "research" | "plan" | "implement" | "revise";

/** What GATE OUT knows when it runs: the run it checks, never the agent's word for it. */
export interface GateOutInput {
  operation: GateOperation;
  sessionId: string;
  repoRoot: string;
  /** Absolute path of the task folder; artifacts must lie inside it. */
  taskFolder: string;
  metadataPath: string;
  /** Everything the agent printed, for TASK_ERROR / ERROR_CONTEXT signals. */
  agentOutput: string;
  minArtifactBytes: number;
  /** Set for one phase of a plan run: the hard barrier checks the phase summary instead of artifacts. */
  phase?: PhaseBarrierInput;
  /** In-session runs: who wrote what in the task folder, and the agent Baton delegated to. */
  provenance?: { view: DelegationView; agent: string };
}

export interface PhaseBarrierInput {
  id: string;
  /** Absolute path where the phase summary must be. */
  summaryPath: string;
  /** SHA-256 of the summary before this call (null: absent): an untouched summary is an earlier one. */
  summaryDigestBefore: string | null;
  minSummaryBytes: number;
}

export interface VerifiedArtifact {
  type: string;
  /** Repository-relative path, as recorded in state.json. */
  path: string;
  summary?: string;
  bytes: number;
}

export interface AgentSignal {
  kind: "TASK_ERROR" | "ERROR_CONTEXT";
  text: string;
}

/** State threaded through the gates; each gate adds what it established. */
export interface GateOutContext extends GateOutInput {
  metadata?: ReturnMetadata;
  artifacts?: VerifiedArtifact[];
  signals: AgentSignal[];
}

export type GateOutFailure = { ok: false; code: GateOutCode; message: string; signals: AgentSignal[] };

export type GateResult = { ok: true } | GateOutFailure;

/** A gate checks one thing; gates run in order and the first refusal wins. */
export type Gate = (ctx: GateOutContext) => GateResult | Promise<GateResult>;

export function refuse(ctx: GateOutContext, code: GateOutCode, message: string): GateOutFailure {
  return { ok: false, code, message, signals: ctx.signals };
}
