import { checkPlace } from "./check-sandbox.js";
import { type Gate, refuse } from "./gate-types.js";
import { describeFailedChecks, runChecks } from "./project-checks.js";

/**
 * The project's own checks (`checks` in baton.config.*), run in the tree where the work happened after
 * everything else about the result verified: a failing check refuses it with CHECK_FAILED, naming the
 * command, exit code and last lines of output. What ran is kept as evidence either way.
 */
export const checkProject: Gate = async (ctx) => {
  const checks = ctx.checks ?? [];
  if (checks.length === 0) return { ok: true };
  const runs = await runChecks(checks, ctx.repoRoot, checkPlace(ctx.repoRoot, ctx.storePrefix, checks));
  ctx.checkRuns = runs;
  if (runs.every((run) => run.ok)) return { ok: true };
  return refuse(ctx, "CHECK_FAILED", describeFailedChecks(runs));
};
