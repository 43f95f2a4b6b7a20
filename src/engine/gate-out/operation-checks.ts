import type { ConfiguredCheck } from "../../config/index.js";
import type { GitBaseline } from "../../state/index.js";
import { workChangedSince } from "./check-changes.js";
import { CHECK_GATES, runGateOut } from "./gate-out-list.js";
import type { GateOutFailure } from "./gate-types.js";
import type { CheckRun } from "./project-checks.js";

/**
 * The project's checks at the end of a whole operation whose own GATE OUT is not the usual list (a plan
 * run, after its phases): the same gates as everywhere — what they test must be the run's baseline's, then
 * they run, then their counts are held to the baseline's.
 */
export async function runOperationChecks(request: {
  repoRoot: string;
  baseline: GitBaseline | null;
  checks: readonly ConfiguredCheck[];
  storePrefix: string;
  plannedChanges: string;
  sessionId: string;
  taskFolder: string;
}): Promise<{ ok: true; checkRuns: CheckRun[] } | GateOutFailure> {
  if (request.checks.length === 0) return { ok: true, checkRuns: [] };
  const { baseline } = request;
  const files = baseline ? await workChangedSince(request.repoRoot, baseline, request.storePrefix) : [];
  const verdict = await runGateOut(
    {
      operation: "implement",
      sessionId: request.sessionId,
      repoRoot: request.repoRoot,
      taskFolder: request.taskFolder,
      metadataPath: "",
      agentOutput: "",
      baseline,
      storePrefix: request.storePrefix,
      expected: { minArtifactBytes: 0, checks: request.checks, plannedChanges: request.plannedChanges },
    },
    [
      (ctx) => {
        // The plan run's own report stands in for metadata; the changes are the whole run's.
        ctx.metadata = {
          status: "implemented",
          summary: "",
          artifacts: [],
          metadata: { session_id: request.sessionId, agent_type: "baton" },
        };
        ctx.changes = { base: baseline?.commit ?? null, files, unlisted: [] };
        return { ok: true };
      },
      ...CHECK_GATES,
    ],
  );
  return verdict.ok ? { ok: true, checkRuns: verdict.checkRuns ?? [] } : verdict;
}
