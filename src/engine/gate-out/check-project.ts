import type { CheckRun } from "../../evidence/index.js";
import { probeSandbox } from "../../runners/index.js";
import { changedOutside } from "./changed-outside.js";
import { type CheckPlace, checkPlace } from "./check-sandbox.js";
import { type Gate, type GateOutContext, refuse } from "./gate-types.js";
import { type ConfiguredCheck, describeFailedChecks, runChecks } from "./project-checks.js";
import { planVerdictTree, withVerdictTree } from "./verdict-tree.js";

/**
 * The project's own checks (`checks` in baton.config.*), run after everything else about the result verified.
 * With a baseline commit they run in the verdict tree (verdict-tree.ts): the baseline's tests against the
 * agent's code. Where the agent also changed the test side (a new test, a helper refactored), its own tree
 * runs the checks again, and must pass too. A failing check refuses the result with CHECK_FAILED, naming
 * the command, exit code and last lines of output. What ran is kept as evidence either way.
 */
export const checkProject: Gate = async (ctx) => {
  const checks = ctx.checks ?? [];
  if (checks.length === 0) return { ok: true };
  const since = ctx.baseline?.takenAt;
  // What the run changed in the user's configuration and PATH: the checks' sandbox shows it empty.
  const unseen = since !== undefined && probeSandbox().ok ? changedOutside(since) : [];
  const place = { ...checkPlace(ctx.repoRoot, ctx.storePrefix, checks), unseen };
  const ran = (await verdictRuns(ctx, checks, place)) ?? (await runChecks(checks, ctx.repoRoot, place));
  const runs = unseen.length > 0 ? ran.map((run) => ({ ...run, unseen })) : ran;
  ctx.checkRuns = runs;
  if (runs.every((run) => run.ok)) return { ok: true };
  return refuse(ctx, "CHECK_FAILED", describeFailedChecks(runs));
};

/** The checks in the verdict tree, then (where it differs) in the agent's; null without a baseline commit. */
async function verdictRuns(
  ctx: GateOutContext,
  checks: readonly ConfiguredCheck[],
  place: CheckPlace,
): Promise<CheckRun[] | null> {
  const commit = ctx.baseline?.commit;
  if (!commit) return null;
  const where = { root: ctx.repoRoot, storePrefix: ctx.storePrefix, commit };
  const plan = await planVerdictTree(where, checks, ctx.plannedChanges ?? "");
  const verdict = await withVerdictTree(ctx.repoRoot, plan, async (tree, linked) =>
    (await runChecks(checks, tree, place)).map((run): CheckRun => ({ ...run, tree: "verdict", linked })),
  );
  if (verdict === null) return null;
  const runs = verdict;
  // A holdout's files are not the agent's: its verdict run is the whole of it.
  const own = checks.filter((check) => check.holdout === null);
  if (plan.held.length === 0 || own.length === 0 || !runs.every((run) => run.ok)) return runs;
  const agent = await runChecks(own, ctx.repoRoot, place);
  return [...runs, ...agent.map((run) => ({ ...run, tree: "agent" as const }))];
}
