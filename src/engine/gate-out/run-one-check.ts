import type { ConfiguredCheck } from "../../config/index.js";
import type { CheckRun } from "../../evidence/index.js";
import { runSandboxed, type SandboxPolicy } from "../../runners/index.js";
import { runProcess } from "../../shared/process.js";
import { reachedCommands, scriptsIn } from "./check-inputs.js";
import { captureReports } from "./test-counts.js";

/** The last lines of a check's output kept for messages. */
const TAIL_LINES = 20;

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
