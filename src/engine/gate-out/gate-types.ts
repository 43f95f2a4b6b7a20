import type { ConfiguredCheck } from "../../config/index.js";
import type { ChangeEvidence, CheckRun, VerifiedArtifact } from "../../evidence/index.js";
import type { DelegationView, GitBaseline, Operation } from "../../state/index.js";

export type { ChangeEvidence, VerifiedArtifact };

import type { WorkSnapshot } from "./result-snapshot.js";
import type { ReturnMetadata } from "./return-metadata.js";

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
  | "ARTIFACT_CONTROL_FILE"
  | "SUMMARY_MISSING"
  | "SUMMARY_TOO_SMALL"
  | "SUMMARY_UNCHANGED"
  | "FILE_OUTSIDE_REPO"
  | "LINK_OUT_OF_REPO"
  | "FILE_IS_REPO_ROOT"
  | "NO_CHANGES"
  | "CLAIMED_UNCHANGED"
  | "CLAIMED_IGNORED"
  | "CHECK_FAILED"
  | "PLAN_UNPARSABLE"
  | "REPORT_SECTIONS_MISSING"
  | "ARTIFACT_NEAR_COPY"
  | "WORK_REMAINING_MISSING"
  | "PHASES_FAILED"
  | "AGENT_NOT_RUN"
  | "NOT_WRITTEN_BY_AGENT"
  | "DELEGATION_LOG_FORGED"
  | "SETTINGS_WEAKENED"
  | "GIT_CONFIG_CHANGED"
  | "NO_TESTS_RAN"
  | "TESTS_REDUCED"
  | "TESTS_SKIPPED"
  | "HISTORY_CHANGED"
  | "BRANCH_CHANGED"
  | "GIT_FAILED"
  | "SUBMODULE_CHANGED"
  | "HOOKS_CHANGED"
  | "SETTINGS_CHANGED";

/** What GATE OUT knows when it runs: the run it checks, never the agent's word for it. */
export interface GateOutInput {
  operation: Operation;
  sessionId: string;
  repoRoot: string;
  /** Absolute path of the task folder; artifacts must lie inside it. */
  taskFolder: string;
  metadataPath: string;
  /** Everything the agent printed, for TASK_ERROR / ERROR_CONTEXT signals. */
  agentOutput: string;
  /** The work tree at GATE IN (or at the phase call): the diff evidence is taken against it. */
  baseline?: GitBaseline | null;
  /** The task store's folder relative to the repository root (`specs`): never counted as work. */
  storePrefix: string;
  /** Set for one phase of a plan run: the hard barrier checks the phase summary instead of artifacts. */
  phase?: PhaseBarrierInput;
  expected: ResultExpectations;
}

/** What the result is held to, from Baton's own records: the configuration, the store, the agent's file. */
export interface ResultExpectations {
  minArtifactBytes: number;
  /** The project's checks that apply to this result (implement only). */
  checks?: readonly ConfiguredCheck[];
  /** The plan's text for this work (the phase's section in a plan run): a check input it names may change. */
  plannedChanges?: string;
  /** Sections a research report must have (`research.sections` in baton.config.*). */
  researchSections?: readonly string[];
  /** Repository-relative paths of the task's artifacts recorded before this run: a near copy is a stub. */
  earlierArtifacts?: readonly string[];
  /** Report templates in the agent's own instructions: filling one in is not writing a report. */
  templates?: ReadonlyArray<{ source: string; text: string }>;
  /** In-session runs: who wrote what in the task folder, and the agent Baton delegated to. */
  provenance?: { view: DelegationView; agent: string };
  /**
   * The agent ran in Baton's sandbox, where git's folder is read-only: history that moved meanwhile (a
   * person's commit, a pull) is not the agent's, and the result is recorded on top of it.
   */
  gitReadOnly?: boolean;
}

export interface PhaseBarrierInput {
  id: string;
  /** Absolute path where the phase summary must be. */
  summaryPath: string;
  /** SHA-256 of the summary before this call (null: absent): an untouched summary is an earlier one. */
  summaryDigestBefore: string | null;
  minSummaryBytes: number;
}

export interface AgentSignal {
  kind: "TASK_ERROR" | "ERROR_CONTEXT";
  text: string;
}

/** State threaded through the gates; each gate adds what it established. */
export interface GateOutContext extends GateOutInput {
  metadata?: ReturnMetadata;
  artifacts?: VerifiedArtifact[];
  changes?: ChangeEvidence;
  checkRuns?: CheckRun[];
  /** The accepted work as the agent left it (the last gate takes it); what COMMIT commits. */
  snapshot?: WorkSnapshot;
  signals: AgentSignal[];
}

export type GateOutFailure = { ok: false; code: GateOutCode; message: string; signals: AgentSignal[] };

export type GateResult = { ok: true } | GateOutFailure;

/** A gate checks one thing; gates run in order and the first refusal wins. */
export type Gate = (ctx: GateOutContext) => GateResult | Promise<GateResult>;

export function refuse(ctx: GateOutContext, code: GateOutCode, message: string): GateOutFailure {
  return { ok: false, code, message, signals: ctx.signals };
}
