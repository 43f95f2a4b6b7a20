import { binScript } from "../shared/package.js";
import { runProcess } from "../shared/process.js";
import { Stopwatch } from "../shared/time.js";
import type { Operation } from "../state/index.js";
import type { BatchRequest, BatchRun } from "./batch-types.js";

function operationArgs(request: BatchRequest, operation: Operation, cap: number | undefined): string[] {
  const args = ["--json", ...request.operationArgs];
  if (operation === "implement" && !request.operationArgs.includes("--isolate"))
    args.push("--isolate", "worktree");
  if (cap !== undefined) args.push("--max-cost", cap.toFixed(6));
  return args;
}

/** One operation as its own `baton <operation> N --json` process, whose report says how it ended. */
export async function runLocally(
  request: BatchRequest,
  number: number,
  operation: Operation,
  cap: number | undefined,
): Promise<BatchRun> {
  const started = new Stopwatch();
  const result = await runProcess({
    command: process.execPath,
    args: [binScript(), operation, String(number), ...operationArgs(request, operation, cap)],
    cwd: request.config.root,
    timeoutMs: 0,
    signal: request.signal,
    // A stopped run records its failure and kills its agent before it exits: give it the time.
    killGraceMs: 20_000,
    onParentStop: "owner",
    tailBytes: 4 * 1024 * 1024,
    onSpawn: (pid) => request.onProgress?.({ type: "started", task: number, operation, pid }),
  });
  const run: BatchRun = { task: number, operation, ok: false, durationMs: started.elapsedMs() };
  try {
    const report = JSON.parse(result.stdout) as {
      sessionId: string;
      status: string;
      result: { ok: boolean; code?: string; message?: string };
      usage?: { costUsd?: number };
      budget?: { message: string };
    };
    run.ok = report.result.ok && !report.budget;
    run.session = report.sessionId;
    run.status = report.status;
    if (!report.result.ok) {
      run.code = report.result.code;
      run.message = report.result.message;
    } else if (report.budget) {
      run.code = "BUDGET_EXCEEDED";
      run.message = report.budget.message;
    }
    if (report.usage?.costUsd !== undefined) run.costUsd = report.usage.costUsd;
  } catch {
    const said = (result.stderr || result.stdout).trim().split("\n").slice(-3).join(" ");
    run.code = /BUDGET_EXCEEDED/.test(said) ? "BUDGET_EXCEEDED" : result.ok ? "NO_REPORT" : "RUN_FAILED";
    run.message = said || ("message" in result ? result.message : "no report");
  }
  return run;
}
