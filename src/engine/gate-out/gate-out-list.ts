import type { AcceptedOutcome } from "../../shared/run-words.js";
import { checkAgentSignals } from "./agent-signals.js";
import { checkArtifacts } from "./check-artifacts.js";
import { checkBranch } from "./check-branch.js";
import { checkChanges } from "./check-changes.js";
import { checkDelegationLog } from "./check-delegation-log.js";
import { checkGitConfig } from "./check-git-config.js";
import { checkHistory } from "./check-history.js";
import { checkHooks } from "./check-hooks.js";
import { refuseLinksOut } from "./check-links.js";
import { checkProject } from "./check-project.js";
import { checkProvenance } from "./check-provenance.js";
import { checkSettings } from "./check-settings.js";
import { checkSession, checkStatus, refuseUnfinishedStatus } from "./check-status.js";
import { checkSubmodules } from "./check-submodules.js";
import { checkSubstance } from "./check-substance.js";
import { checkTestCounts } from "./check-test-counts.js";
import type {
  ChangeEvidence,
  Gate,
  GateOutContext,
  GateOutFailure,
  GateOutInput,
  VerifiedArtifact,
} from "./gate-types.js";
import type { CheckRun } from "./project-checks.js";
import { readReturnMetadata } from "./read-metadata.js";
import type { WorkSnapshot } from "./result-snapshot.js";
import type { ReturnMetadata } from "./return-metadata.js";
import { snapshotResult } from "./snapshot-result.js";

/**
 * The project's checks: they run (in the verdict tree, see verdict-tree.ts), then what their runners
 * reported is held to the baseline's tests.
 */
export const CHECK_GATES: readonly Gate[] = [checkProject, checkTestCounts];

/** GATE OUT, in order: what the agent printed, then its metadata, then what it claims to have written. */
export const GATE_OUT: readonly Gate[] = [
  checkGitConfig,
  checkBranch,
  checkHistory,
  checkHooks,
  checkSettings,
  checkAgentSignals,
  readReturnMetadata,
  checkSession,
  refuseUnfinishedStatus,
  checkStatus,
  checkArtifacts,
  checkSubstance,
  checkSubmodules,
  checkChanges,
  refuseLinksOut,
  checkDelegationLog,
  checkProvenance,
  ...CHECK_GATES,
  snapshotResult,
];

/**
 * GATE OUT's gates that judge a whole operation's result, not one call of a phase agent: the phase barrier
 * (plan-run/phase-call.ts) is GATE OUT without these, with its own status and summary checks in place of
 * checkStatus and checkArtifacts.
 */
export const OPERATION_ONLY_GATES: ReadonlySet<Gate> = new Set([
  checkSubstance,
  checkDelegationLog,
  checkProvenance,
  snapshotResult,
]);

export type GateOutVerdict =
  | {
      ok: true;
      /** `partial` leaves the task resumable; `done` lets the operation record its done status. */
      outcome: AcceptedOutcome;
      metadata: ReturnMetadata;
      artifacts: VerifiedArtifact[];
      changes?: ChangeEvidence;
      checkRuns?: CheckRun[];
      snapshot?: WorkSnapshot;
      signals: GateOutContext["signals"];
    }
  | GateOutFailure;

export async function runGateOut(
  input: GateOutInput,
  gates: readonly Gate[] = GATE_OUT,
): Promise<GateOutVerdict> {
  const ctx: GateOutContext = { ...input, signals: [] };
  for (const gate of gates) {
    const result = await gate(ctx);
    if (!result.ok) return result;
  }
  const metadata = ctx.metadata!;
  return {
    ok: true,
    outcome: metadata.status === "partial" ? "partial" : "done",
    metadata,
    artifacts: ctx.artifacts ?? [],
    ...(ctx.changes ? { changes: ctx.changes } : {}),
    ...(ctx.checkRuns ? { checkRuns: ctx.checkRuns } : {}),
    ...(ctx.snapshot ? { snapshot: ctx.snapshot } : {}),
    signals: ctx.signals,
  };
}
