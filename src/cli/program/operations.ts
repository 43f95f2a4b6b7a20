import type { Command } from "commander";
import { OPERATIONS } from "../../shared/operation-names.js";
import { RUNNER_CHOICES } from "../../shared/runner-names.js";
import type { Operation } from "../../state/index.js";
import { described, type Output, print, repoOf } from "./io.js";

const DESCRIPTIONS: Record<Operation, string> = {
  research: "research a task: an agent writes a report, GATE OUT verifies it, Baton commits",
  plan: "write an implementation plan for a researched task",
  implement: "implement a planned task, phase by phase in dependency waves",
  revise: "replace a task's plan with a new version",
};

export function defineOperations(program: Command): void {
  for (const operation of OPERATIONS) {
    const command = program
      .command(operation)
      .description(DESCRIPTIONS[operation])
      .argument("<number>", "task number")
      .argument("[focus...]", "what to concentrate on (passed to the agent)")
      .option("-f, --force", "start past the lifecycle table (audited), or take over a dead run's checkpoint")
      .option("--agent <name>", "route to this agent or skill instead of the language table")
      .option("--language <language>", "route as if the task had this language (e.g. lean, latex)")
      .option("--runner <type>", `${RUNNER_CHOICES} (default: baton.config.json, else claude)`)
      .option("--script <file>", "run a scripted agent from this JSON script (dry runs, demos, tests)")
      .option("--timeout <seconds>", "kill the agent's whole process group after this long")
      .option(
        "--sandbox <mode>",
        "bubblewrap (default: the agent cannot touch history, the store or Baton's files) | off",
      )
      .option("--no-commit", "leave the result uncommitted")
      .option("--max-cost <usd>", "stop before this run spends more than this many US dollars");
    if (operation === "implement") {
      command
        .option("--concurrency <n>", "phases of one wave that run at once (default 4)")
        .option("--max-iterations <n>", "calls of a phase that keeps reporting work remaining (default 5)")
        .option(
          "--isolate <mode>",
          "worktree: each phase in its own git worktree, merged back in phase order",
        );
    }
    command
      .option(
        "-n, --dry-run",
        "show GATE IN's verdict, the runner, the route, the paths and the prompt; write nothing",
      )
      .option("--json", "print the result as JSON")
      .action(async (number: string, focus: string[], opts, cmd: Command) => {
        if (opts.dryRun) {
          const { planOnly } = await import("../commands/operate.js");
          const { formatPlan } = await import("../progress.js");
          const plan = await planOnly(operation, { ...opts, number, focus, repo: repoOf(cmd) });
          print(plan, opts, () => formatPlan(plan));
          if (!plan.gateIn.ok) process.exitCode = 1;
          return;
        }
        await runOperation(operation, number, focus, opts, cmd);
      });
    described(command, "operations", operation);
    if (operation === "plan") definePlanShow(command);
  }
}

async function runOperation(
  operation: Operation,
  number: string,
  focus: string[],
  opts: Output & Record<string, unknown>,
  cmd: Command,
): Promise<void> {
  const { operate } = await import("../commands/operate.js");
  const { formatOperation, progressReporter } = await import("../progress.js");
  const progress = opts.json ? undefined : progressReporter(process.stderr);
  const abort = new AbortController();
  const { handleSignal } = await import("../../shared/process-group.js");
  // SIGTERM too: `baton run` stops its runs with it, and each records its end before it exits.
  const off = [handleSignal("SIGINT", () => abort.abort()), handleSignal("SIGTERM", () => abort.abort())];
  try {
    const report = await operate(
      operation,
      { ...opts, number, focus, repo: repoOf(cmd) },
      progress?.onProgress,
      abort.signal,
    );
    progress?.stop();
    print(report, opts, () => formatOperation(report));
    if (!report.result.ok || report.budget) process.exitCode = 1;
    // Stopped by Ctrl-C or SIGTERM: the shell's code for an interrupted command, whatever was recorded.
    if (abort.signal.aborted) process.exitCode = 130;
  } finally {
    progress?.stop();
    for (const remove of off) remove();
  }
}

async function showPlan(target: string, own: Output, cmd: Command): Promise<void> {
  // `baton plan show 1 --json`: the plan command has a --json of its own, which takes the flag.
  const opts = { ...own, ...(cmd.optsWithGlobals() as Output) };
  const { formatPlanShow, planShow } = await import("../commands/plan-show.js");
  const view = await planShow({ target, repo: repoOf(cmd) });
  print(view, opts, () => formatPlanShow(view));
  if (!view.ok) process.exitCode = 1;
}

/** `baton plan show`, and `baton plan-show`, which lists it under Plans in `baton --help`. */
function definePlanShow(plan: Command): void {
  described(
    plan
      .command("show")
      .description("show a plan: phases, dependencies, checkboxes, waves and any problems")
      .argument("<task-or-file>", "a task number (its latest plan) or the path of a plan file")
      .option("--json", "print JSON")
      .action((target: string, opts: Output, cmd: Command) => showPlan(target, opts, cmd)),
    null,
    "plan show",
  );
  described(
    plan
      .parent!.command("plan-show")
      .description("the same as `baton plan show`")
      .argument("<task-or-file>", "a task number (its latest plan) or the path of a plan file")
      .option("--json", "print JSON")
      .action((target: string, opts: Output, cmd: Command) => showPlan(target, opts, cmd)),
    "plans",
    "plan show",
  );
}
