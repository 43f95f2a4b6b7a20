import type { ConfiguredCheck } from "../../config/index.js";
import type { CheckRun } from "../../evidence/index.js";
import { probeSandbox } from "../../runners/index.js";
import { changedOutside } from "./changed-outside.js";
import { type CheckPlace, checkPlace } from "./check-sandbox.js";
import { undeclaredDependencyChanges } from "./dependency-changes.js";
import { type Gate, type GateOutContext, refuse } from "./gate-types.js";
import { describeFailedChecks, runChecks } from "./project-checks.js";
import { dependencyFolders } from "./scratch-tree.js";
import { planVerdictTree, type VerdictTreePlan, withVerdictTree } from "./verdict-tree.js";

/**
 * The project's own checks (`checks` in baton.config.*), run after everything else about the result verified.
 * With a baseline commit they run in the verdict tree (verdict-tree.ts): the baseline's tests against the
 * agent's code. Where the agent also changed the test side (a new test, a helper refactored), its own tree
 * runs the checks again, and must pass too. A failing check refuses the result with CHECK_FAILED, naming
 * the command, exit code and last lines of output. What ran is kept as evidence either way.
 */
export const checkProject: Gate = async (ctx) => {
  const checks = ctx.expected.checks ?? [];
  if (checks.length === 0) return { ok: true };
  const commit = ctx.baseline?.commit;
  const where = commit ? { root: ctx.repoRoot, storePrefix: ctx.storePrefix, commit } : null;
  const plan = where ? await planVerdictTree(where, checks, ctx.expected.plannedChanges ?? "") : null;
  // Listed once: the verdict tree links them, and what the run changed in them is held to their lock files.
  const folders = plan ? await dependencyFolders(ctx.repoRoot) : [];
  const unseen = unseenByChecks(ctx, plan, folders);
  const place = { ...checkPlace(ctx.repoRoot, ctx.storePrefix, checks), unseen };
  const ran =
    (plan && (await verdictRuns(ctx, { plan, folders }, checks, place))) ??
    (await runChecks(checks, ctx.repoRoot, place));
  const runs = unseen.length > 0 ? ran.map((run) => ({ ...run, unseen })) : ran;
  ctx.checkRuns = runs;
  if (runs.every((run) => run.ok)) return { ok: true };
  return refuse(ctx, "CHECK_FAILED", describeFailedChecks(runs));
};

/**
 * What the checks do not see (each file reads empty in their sandbox): what the run changed in the user's
 * configuration and PATH, and in the dependency folders without changing what they are installed from.
 */
function unseenByChecks(
  ctx: GateOutContext,
  plan: VerdictTreePlan | null,
  folders: readonly string[],
): string[] {
  const since = ctx.baseline?.takenAt;
  if (since === undefined || !probeSandbox().ok) return [];
  const changed = plan ? [...plan.taken, ...plan.held] : [];
  const dependencies = undeclaredDependencyChanges(ctx.repoRoot, folders, changed, since);
  return [...changedOutside(since), ...dependencies];
}

/** The checks in the verdict tree, then (where it differs) in the agent's; null when git cannot make the tree. */
async function verdictRuns(
  ctx: GateOutContext,
  { plan, folders }: { plan: VerdictTreePlan; folders: readonly string[] },
  checks: readonly ConfiguredCheck[],
  place: CheckPlace,
): Promise<CheckRun[] | null> {
  const runs = await withVerdictTree(
    ctx.repoRoot,
    plan,
    async (tree, linked) =>
      (await runChecks(checks, tree, place)).map((run): CheckRun => ({ ...run, tree: "verdict", linked })),
    folders,
  );
  if (runs === null) return null;
  // A holdout's files are not the agent's: its verdict run is the whole of it.
  const own = checks.filter((check) => check.holdout === null);
  if (plan.held.length === 0 || own.length === 0 || !runs.every((run) => run.ok)) return runs;
  const agent = await runChecks(own, ctx.repoRoot, place);
  return [...runs, ...agent.map((run) => ({ ...run, tree: "agent" as const }))];
}
