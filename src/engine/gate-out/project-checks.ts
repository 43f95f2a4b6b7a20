import type { BatonConfig } from "../../config/index.js";
import type { CheckRun } from "../../evidence/index.js";
import { runSandboxed, type SandboxPolicy } from "../../runners/index.js";
import { runProcess } from "../../shared/process.js";
import { reachedCommands, scriptsIn } from "./check-inputs.js";
import { type CheckPlace, checkSandbox } from "./check-sandbox.js";
import { runHoldout } from "./holdout-check.js";
import { captureReports } from "./test-counts.js";

export type { CheckRun };

export type ConfiguredCheck = BatonConfig["checks"][number];

const TAIL_LINES = 20;

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

/** One check through the process helper, with its runner asked for its report. */
export async function runOneCheck(
  check: ConfiguredCheck,
  cwd: string,
  env: NodeJS.ProcessEnv,
  sandbox: SandboxPolicy | null,
  signal?: AbortSignal,
): Promise<CheckRun> {
  const lines: string[] = [];
  const keep = (line: string) => {
    lines.push(line);
    if (lines.length > TAIL_LINES) lines.shift();
  };
  const reports = captureReports(cwd, check.report, reachedCommands([check], scriptsIn(cwd)), check.format);
  // A format read from the output needs all of it (up to 32 MiB), not only the tail kept for messages.
  const output: string[] = [];
  let kept = 0;
  const whole = (line: string) => {
    if (check.format === "junit" || check.report !== null || kept > 32 << 20) return;
    output.push(line);
    kept += line.length + 1;
  };
  const options = {
    cwd,
    env: { ...process.env, ...reports.env, ...env },
    timeoutMs: check.timeoutMs,
    ...(signal ? { signal } : {}),
    onStdoutLine: (line: string) => {
      keep(line);
      whole(line);
    },
    onStderrLine: keep,
  };
  const held = sandbox ? { ...sandbox, readOnly: [...sandbox.readOnly, ...reports.held] } : null;
  const result = held
    ? await runSandboxed(held, { ...options, command: "/bin/sh", args: ["-c", check.run] })
    : await runProcess({ ...options, command: check.run, shell: true });
  const counts = reports.read(output.join("\n"));
  const tests = reports.tests();
  reports.dispose();
  const run: CheckRun = {
    name: check.name,
    command: check.run,
    ok: result.ok,
    exitCode: result.exitCode,
    durationMs: Math.round(result.durationMs),
    tail: lines,
    ...(counts ? { counts } : {}),
    ...(tests
      ? {
          testIds: {
            ran: tests.filter((t) => t.outcome === "passed" || t.outcome === "failed").map((t) => t.id),
            passed: tests.filter((t) => t.outcome === "passed").map((t) => t.id),
          },
        }
      : {}),
  };
  if (!result.ok && result.reason !== "exit") run.reason = result.message;
  return run;
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
