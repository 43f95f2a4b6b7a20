import type { Command } from "commander";
import { RUNNER_CHOICES } from "../../shared/runner-names.js";
import { inert } from "../../shared/terminal-text.js";
import { collect, described, print, repoOf } from "./io.js";

export function defineBatch(program: Command): void {
  defineRun(program);
  defineWorker(program);
}

function defineRun(program: Command): void {
  described(
    program
      .command("run")
      .description("run the selected tasks' next operations, several at once, until a target status")
      .option("--tasks <list>", "task numbers and ranges: 12,14-16")
      .option("--status <status>", "tasks with this status (repeatable, comma-separated)", collect)
      .option("--language <language>", "tasks of this language (repeatable, comma-separated)", collect)
      .option("--all-ready", "every active task with a next operation")
      .option("--until <status>", "researched | planned | implemented | completed (default completed)")
      .option("--concurrency <n>", "operations at once (default 2)")
      .option("--max-cost <usd>", "stop starting runs before the batch spends more than this")
      .option("--runner <type>", `${RUNNER_CHOICES}, for every run`)
      .option("--script <file>", "a scripted agent for every run (its `operations` steps per operation)")
      .option("--timeout <seconds>", "each agent's timeout")
      .option("--sandbox <mode>", "bubblewrap (default) | off: where each agent runs")
      .option(
        "--queue <url>",
        "delegate through PostgreSQL (postgres://…) to `baton worker`s on other machines",
      )
      .option("--remote <url>", "with --queue: how workers fetch this repository (default: its path)")
      .option("--json", "print the report as JSON")
      .action(async (opts, cmd: Command) => {
        const { runMany } = await import("../commands/run.js");
        const { batchReporter, formatBatch } = await import("../batch-format.js");
        const progress = opts.json ? undefined : batchReporter(process.stderr);
        const { handleSignal } = await import("../../shared/process-group.js");
        const abort = new AbortController();
        const stop = () => {
          if (!abort.signal.aborted) process.stderr.write("Stopping: each run records its end first…\n");
          abort.abort();
        };
        const off = [handleSignal("SIGINT", stop), handleSignal("SIGTERM", stop)];
        try {
          const report = await runMany({ ...opts, repo: repoOf(cmd) }, abort.signal, progress);
          print(report, opts, () => formatBatch(report));
          const failed = report.runs.some((r) => !r.ok) || report.stopped !== "done";
          if (failed) process.exitCode = report.stopped === "signal" ? 130 : 1;
        } finally {
          for (const remove of off) remove();
        }
      }),
    "operations",
    "run",
  );
}

function defineWorker(program: Command): void {
  described(
    program
      .command("worker")
      .description("take DELEGATE jobs from a `baton run --queue` coordinator, in a clone on this machine")
      .requiredOption("--queue <url>", "the coordinator's PostgreSQL (postgres://…)")
      .option("--repo <dir>", "this machine's clone of the repository (default: the current one)")
      .option("--runner <type>", "the runner for every job (default: the clone's baton.config)")
      .option("--script <file>", "a scripted agent for every job")
      .option("--machine <name>", "how this worker is named in baton status (default host:pid)")
      .option(
        "--sandbox <mode>",
        "bubblewrap (default; the worker does not start without it) | off: take only unsandboxed coordinators' jobs",
      )
      .option("--max-jobs <n>", "stop after this many jobs")
      .option("--json", "print the report as JSON")
      .action(async (opts, cmd: Command) => {
        const { worker } = await import("../commands/run.js");
        const { handleSignal } = await import("../../shared/process-group.js");
        const abort = new AbortController();
        const off = [
          handleSignal("SIGINT", () => abort.abort()),
          handleSignal("SIGTERM", () => abort.abort()),
        ];
        try {
          const report = await worker({ ...opts, repo: opts.repo ?? repoOf(cmd) }, abort.signal, (line) =>
            process.stderr.write(`${inert(line)}\n`),
          );
          print(
            report,
            opts,
            () =>
              `Worker ${report.machine}: ${report.completed} jobs done, ${report.failed} failed, ${report.dropped} dropped (lease lost).`,
          );
        } finally {
          for (const remove of off) remove();
        }
      }),
    "operations",
    "worker",
  );
}
