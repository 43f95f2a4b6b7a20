import type { appendError } from "../../state/index.js";
import type { PhaseVerdict } from "./plan-run-types.js";

function describe(verdict: PhaseVerdict): string {
  if (verdict.kind === "complete") return "complete";
  if (verdict.kind === "partial") return verdict.message;
  if (verdict.kind === "dependency_blocked") return verdict.message;
  return `${verdict.code}: ${verdict.message}`;
}

/** errors.json's entry for a phase that did not complete. */
export function phaseFailure(
  rc: { sessionId: string; taskNumber: number; delegationPath: string[] },
  phase: { id: string; name: string },
  verdict: Exclude<PhaseVerdict, { kind: "complete" }>,
  keptBranch: string | undefined,
): Parameters<typeof appendError>[1] {
  return {
    type: verdict.kind === "partial" ? `phase_${verdict.reason}` : "phase_not_complete",
    severity: verdict.kind === "dependency_blocked" ? "low" : "medium",
    message: `Phase ${phase.id} (${phase.name}): ${describe(verdict)}`,
    sessionId: rc.sessionId,
    command: "implement",
    task: rc.taskNumber,
    checkpoint: verdict.kind === "failed" && verdict.code === "COMMIT_FAILED" ? "COMMIT" : "DELEGATE",
    delegationPath: rc.delegationPath,
    suggestedAction: keptBranch
      ? `merge branch ${keptBranch} by hand, then run \`baton implement ${rc.taskNumber}\``
      : `fix the cause, then run \`baton implement ${rc.taskNumber}\` (it resumes at the first incomplete phase)`,
  };
}
