import type { ConfiguredCheck } from "../../config/index.js";
import type { CheckRun, TestCounts } from "../../evidence/index.js";
import { baselineCounts } from "./baseline-counts.js";
import { baselineScripts, reachedCommands, scriptsIn } from "./check-inputs.js";
import { checkPlace } from "./check-sandbox.js";
import { type Gate, type GateOutCode, refuse } from "./gate-types.js";

/**
 * A check that passes counts only with the tests behind it: Baton reads what each check's runner
 * reported (JUnit) and holds it to what the same check ran at the baseline. A failed test in the report refuses
 * whatever the exit code said (`CHECK_FAILED`). None ran (`NO_TESTS_RAN`,
 * also when the runner reported at the baseline and reports nothing now), fewer ran (`TESTS_REDUCED`), or
 * more were skipped or left todo (`TESTS_SKIPPED`): refused. Runs after the checks passed.
 */
/**
 * A check whose runner Baton can count: it names its report or format, or runs node's test runner or pytest
 * by the scripts as the baseline had them (an agent's rewritten script is not the question).
 */
function reportsCounts(check: ConfiguredCheck, scripts: Record<string, string>): boolean {
  if (check.report !== null || check.format !== "junit") return true;
  return reachedCommands([check], scripts).some((c) => /\bnode\b[^;&|]*--test\b|\bpytest\b/.test(c));
}

const SHOWN = 5;
// A test whose name carries a memory address (a parametrized object's repr) is named anew on every run.
const UNSTABLE = /0x[0-9a-f]{6,}/i;

/**
 * The tests the baseline ran (by id, as many times as it ran each) that are not among those that passed now:
 * tests are held by which ran, not by how many (three deleted and three trivial ones added keep the total).
 */
function missingTests(
  baseline: readonly string[] | undefined,
  passed: readonly string[] | undefined,
): string[] {
  if (!baseline || !passed) return [];
  const left = new Map<string, number>();
  for (const id of passed) left.set(id, (left.get(id) ?? 0) + 1);
  const missing: string[] = [];
  for (const id of baseline) {
    if (UNSTABLE.test(id)) continue;
    const n = left.get(id) ?? 0;
    if (n > 0) left.set(id, n - 1);
    else missing.push(id.trim());
  }
  return missing;
}

const shown = (c: TestCounts) =>
  `${c.tests} test(s): ${c.passed} passed, ${c.failed} failed, ${c.skipped} skipped, ${c.todo} todo`;

export const checkTestCounts: Gate = async (ctx) => {
  const runs = ctx.checkRuns ?? [];
  const commit = ctx.baseline?.commit;
  if (runs.length === 0 || !runs.every((r) => r.ok)) return { ok: true };
  // Only checks whose runner reports are held to the baseline: measuring it costs a run of the checks.
  const scripts = commit ? await baselineScripts(ctx.repoRoot, commit) : scriptsIn(ctx.repoRoot);
  const countable = (ctx.expected.checks ?? []).filter((c) => reportsCounts(c, scripts));
  // The baseline is measured as the checks ran: without what the run changed in the user's configuration.
  const place = {
    ...checkPlace(ctx.repoRoot, ctx.storePrefix, ctx.expected.checks ?? []),
    unseen: runs[0]?.unseen ?? [],
  };
  const base = commit && countable.length > 0 ? await baselineCounts(place, commit, countable) : {};
  for (const run of runs) {
    const before = base[run.name] ?? null;
    const now = run.counts ?? null;
    const refusal = (code: GateOutCode, why: string) =>
      refuse(ctx, code, `check "${run.name}" (\`${run.command}\`) exited 0, but ${why}`);
    if (now === null) {
      const check = ctx.expected.checks?.find((c) => c.name === run.name);
      const declared = check !== undefined && (check.report !== null || check.format !== "junit");
      if (before === null && !declared) continue;
      const then =
        before === null
          ? "its configuration says it writes one"
          : `at the baseline it reported ${shown(before)}`;
      return refusal("NO_TESTS_RAN", `its runner left no complete report; ${then}`);
    }
    if (now.tests === 0) return refusal("NO_TESTS_RAN", "its runner reported no test at all");
    // The exit code is the process's word, which the code under test can change; a failure in the report stands.
    if (now.failed > 0)
      return refusal("CHECK_FAILED", `its runner reported ${now.failed} failed test(s) (${shown(now)})`);
    if (before === null) continue;
    const refused =
      countRefusal(now, before, run.tree === "agent") ??
      (run.tree === "agent" ? null : identityRefusal(before, run));
    if (refused) return refusal(refused.code, refused.why);
  }
  return { ok: true };
};

type Refusal = { code: GateOutCode; why: string } | null;

/**
 * Fewer tests than the baseline ran, or more skipped or todo: in the verdict tree, and in the agent's own tree
 * (its tests as it left them, run after the verdict tree passed), whose tests are what the work would commit.
 */
function countRefusal(now: TestCounts, before: TestCounts, agentTree: boolean): Refusal {
  const where = agentTree ? "in the tree the agent left (its own tests) " : "";
  const counts = `(now ${shown(now)}; baseline ${shown(before)})`;
  if (now.tests < before.tests)
    return {
      code: "TESTS_REDUCED",
      why: `${where}it ran ${now.tests} test(s) where the baseline ran ${before.tests}${agentTree ? ": the work would commit fewer tests" : ""} ${counts}`,
    };
  if (now.skipped + now.todo > before.skipped + before.todo)
    return {
      code: "TESTS_SKIPPED",
      why: `${where}${now.skipped + now.todo} test(s) are skipped or todo where the baseline had ${before.skipped + before.todo}${agentTree ? ": the work would commit them skipped" : ""} ${counts}`,
    };
  return null;
}

/** The verdict tree: every test the baseline ran runs and passes, by identity. */
function identityRefusal(before: { ran?: string[] }, run: CheckRun): Refusal {
  const missing = missingTests(before.ran, run.testIds?.passed);
  if (missing.length > 0)
    return {
      code: "TESTS_REDUCED",
      why: `${missing.length} test(s) the baseline ran did not run and pass now, whatever the total: ${missing.slice(0, SHOWN).join(", ")}${missing.length > SHOWN ? ", …" : ""}`,
    };
  return null;
}
