import type { BatonConfig, ConfiguredCheck } from "../../config/index.js";
import type { CheckRun } from "../../evidence/index.js";
import { type CheckPlace, checkSandbox } from "./check-sandbox.js";
import { runHoldout } from "./holdout-check.js";
import { runOneCheck } from "./run-one-check.js";

export type { CheckRun };

/** The checks that apply where a unit of work ends: at a phase barrier, or at an operation's GATE OUT. */
export function checksFor(
  config: BatonConfig,
  language: string,
  at: "phase" | "operation",
): ConfiguredCheck[] {
  // A holdout check never runs at a phase barrier, whose refusal goes back to the agent as feedback.
  return config.checks.filter(
    (check) =>
      (check.when === "both" || check.when === at) &&
      (check.languages === null || check.languages.includes(language)) &&
      (check.holdout === null || at === "operation"),
  );
}

/**
 * Runs the checks one after another in `cwd`, each in its sandbox (check-sandbox.ts), through the process
 * helper (a timeout kills the whole process group). Every check runs, so a failure report names all that failed.
 */
export async function runChecks(
  checks: readonly ConfiguredCheck[],
  cwd: string,
  place: CheckPlace,
  signal?: AbortSignal,
): Promise<CheckRun[]> {
  const runs: CheckRun[] = [];
  for (const check of checks) {
    const sandbox = await checkSandbox(place, cwd, check);
    runs.push(
      check.holdout === null
        ? await runOneCheck(check, cwd, {}, sandbox, signal)
        : await runHoldout(check, { cwd, root: place.root }, sandbox, signal),
    );
    if (signal?.aborted) break;
  }
  return runs;
}

const TREES = {
  verdict: " in the verdict tree (the baseline's tests as committed, the agent's code)",
  agent: " in the tree the agent left (its own tests)",
  none: "",
} as const;

/** CHECK_FAILED's message: each failed check with its command, exit code, counts and last lines. */
export function describeFailedChecks(runs: readonly CheckRun[]): string {
  return runs
    .filter((run) => !run.ok)
    .map((run) => {
      const c = run.counts;
      const counted = c
        ? ` (${c.tests} tests: ${c.passed} passed, ${c.failed} failed, ${c.skipped + c.todo} skipped)`
        : "";
      const how = `${run.reason ?? `exit code ${run.exitCode}`}${counted}`;
      const tail = run.tail.length > 0 ? `\n${run.tail.map((l) => `    ${l}`).join("\n")}` : "";
      return `check "${run.name}" (\`${run.command}\`) failed${TREES[run.tree ?? "none"]}: ${how}${tail}`;
    })
    .join("\n");
}
