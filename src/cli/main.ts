import { existsSync, realpathSync } from "node:fs";
import { delimiter, join } from "node:path";
import { Command, CommanderError, Option } from "commander";
import { fileSystemFailure, isBatonError } from "../shared/index.js";

/**
 * The only place that reads argv, prints and exits. Each command module is imported when its
 * command runs, so `baton task list` never loads code it does not use.
 */
interface Output {
  json?: boolean;
}

function print(data: unknown, options: Output, human: () => string): void {
  process.stdout.write(options.json ? `${JSON.stringify(data, null, 2)}\n` : `${human()}\n`);
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

/**
 * How the model should call Baton back: `baton` when that is what runs on PATH, else this very script
 * through node (quoted), so a printed gate-out command works in Claude Code's Bash either way.
 */
function selfCommand(): string {
  const override = process.env["BATON_SELF"];
  if (override) return override;
  const script = process.argv[1] ?? "baton";
  try {
    const real = realpathSync(script);
    for (const dir of (process.env["PATH"] ?? "").split(delimiter)) {
      const candidate = join(dir, "baton");
      if (existsSync(candidate) && realpathSync(candidate) === real) return "baton";
    }
    return `node ${/[\s"'$`\\]/.test(real) ? JSON.stringify(real) : real}`;
  } catch {
    return "baton";
  }
}

async function showPlan(number: string, opts: Output, cmd: Command): Promise<void> {
  const { formatPlanShow, planShow } = await import("./commands/plan-show.js");
  const view = await planShow({ number, repo: repoOf(cmd) });
  print(view, opts, () => formatPlanShow(view));
  if (!view.ok) process.exitCode = 1;
}

function repoOf(command: Command): string {
  return (command.optsWithGlobals() as { repo?: string }).repo ?? process.cwd();
}

export function buildProgram(): Command {
  const program = new Command("baton")
    .description("Run AI coding agents through checkpoints enforced by code.")
    .option(
      "-C, --repo <dir>",
      "repository root (default: the current directory or its nearest parent with specs/)",
    )
    .showHelpAfterError()
    .exitOverride();

  const task = program
    .command("task")
    .description("create, inspect and move tasks in specs/state.json and TODO.md");

  task
    .command("add")
    .description("create a task (number from next_project_number, slug from the title)")
    .argument("<title...>", "task title")
    .option("-d, --description <text>", "description")
    .option("-l, --language <language>", "language (default: detected from the title, else general)")
    .option("-p, --priority <priority>", "critical | high | medium | low")
    .option("-e, --effort <effort>", 'effort estimate, e.g. "2 hours"')
    .option("--depends <numbers>", 'task numbers this depends on, e.g. "12,14-16"')
    .option("--json", "print the created task as JSON")
    .action(async (title: string[], opts, cmd: Command) => {
      const { taskAdd } = await import("./commands/task.js");
      const { formatTask } = await import("./format.js");
      const view = await taskAdd({ ...opts, title: title.join(" "), repo: repoOf(cmd) });
      print(view, opts, () => `Created task ${view.number}: ${view.title}\n\n${formatTask(view)}`);
    });

  task
    .command("list")
    .description("list active tasks")
    .option("-s, --status <status>", "only these statuses (repeat or comma-separate)", collect)
    .option("-l, --language <language>", "only these languages (repeat or comma-separate)", collect)
    .option("--json", "print JSON")
    .action(async (opts, cmd: Command) => {
      const { taskList } = await import("./commands/task.js");
      const { formatTaskList } = await import("./format.js");
      const views = await taskList({ ...opts, repo: repoOf(cmd) });
      print(views, opts, () => formatTaskList(views));
    });

  task
    .command("show")
    .description("show one task with its artifacts")
    .argument("<number>")
    .option("--json", "print JSON (includes the raw state.json entry)")
    .action(async (number: string, opts, cmd: Command) => {
      const { taskShow } = await import("./commands/task.js");
      const { formatTask } = await import("./format.js");
      const view = await taskShow({ number, repo: repoOf(cmd) });
      print(view, opts, () => formatTask(view));
    });

  task
    .command("edit")
    .description("change a task's title, description, language, priority, effort or dependencies")
    .argument("<number>")
    .option("-t, --title <title>")
    .option("-d, --description <text>")
    .option("-l, --language <language>")
    .option("-p, --priority <priority>")
    .option("-e, --effort <effort>")
    .option("--depends <numbers>", 'replace dependencies ("none" clears them)')
    .option("--json", "print the task as JSON")
    .action(async (number: string, opts, cmd: Command) => {
      const { taskEdit } = await import("./commands/task.js");
      const { formatTask } = await import("./format.js");
      const view = await taskEdit({ ...opts, number, repo: repoOf(cmd) });
      print(view, opts, () => `Updated task ${view.number}.\n\n${formatTask(view)}`);
    });

  task
    .command("status")
    .description("move a task to another status through the lifecycle table")
    .argument("<number>")
    .argument("<status>", "not_started | researched | planned | partial | blocked | completed")
    .option("-r, --reason <text>", "why (required for blocked; recorded with --force)")
    .option("--summary <text>", "completion summary (for completed)")
    .option("-f, --force", "override the lifecycle table; an audit note is recorded on the task")
    .option("--json", "print JSON")
    .action(async (number: string, status: string, opts, cmd: Command) => {
      const { taskStatus } = await import("./commands/task.js");
      const change = await taskStatus({ ...opts, number, status, repo: repoOf(cmd) });
      print(change, opts, () =>
        [
          `Task ${change.number}: ${change.from} → ${change.to}${change.forced ? " (forced; audit note recorded)" : ""}`,
          ...change.autoCompleted.map((n) => `Task ${n}: all subtasks done → completed`),
        ].join("\n"),
      );
    });

  task
    .command("abandon")
    .description('abandon tasks and move them to the archive (ranges: 12-15, "12, 14")')
    .argument("<numbers...>")
    .option("-r, --reason <text>", "why, recorded as abandoned_reason")
    .option("-f, --force", "abandon even while an operation is in progress")
    .option("--json", "print JSON")
    .action(async (numbers: string[], opts, cmd: Command) => {
      const { taskAbandon } = await import("./commands/task.js");
      const result = await taskAbandon({ ...opts, numbers, repo: repoOf(cmd) });
      print(result, opts, () =>
        [
          `Abandoned and archived: ${result.abandoned.join(", ")}`,
          ...result.autoCompleted.map((n) => `Task ${n}: all subtasks done → completed`),
        ].join("\n"),
      );
    });

  task
    .command("recover")
    .description("bring archived tasks back as not_started")
    .argument("<numbers...>")
    .option("--json", "print JSON")
    .action(async (numbers: string[], opts, cmd: Command) => {
      const { taskRecover } = await import("./commands/task.js");
      const result = await taskRecover({ numbers, repo: repoOf(cmd) });
      print(result, opts, () =>
        result.recovered
          .map((r) => `Recovered task ${r.number}${r.folder ? ` (folder ${r.folder})` : ""}`)
          .join("\n"),
      );
    });

  task
    .command("expand")
    .description("split a task into subtasks; it completes itself when they are all done")
    .argument("<number>")
    .requiredOption("-s, --subtask <title>", "a subtask title (repeat for each)", collect)
    .option("-f, --force", "expand even while an operation is in progress")
    .option("--json", "print JSON")
    .action(async (number: string, opts, cmd: Command) => {
      const { taskExpand } = await import("./commands/task.js");
      const result = await taskExpand({ ...opts, number, repo: repoOf(cmd) });
      print(result, opts, () => `Task ${result.parent} expanded into ${result.subtasks.join(", ")}`);
    });

  for (const [operation, description] of [
    ["research", "research a task: GATE IN → an agent writes a report → GATE OUT verifies it → commit"],
    ["plan", "write an implementation plan for a researched task"],
    ["implement", "implement a planned task"],
    ["revise", "replace a task's plan with a new version"],
  ] as const) {
    program
      .command(operation)
      .description(description)
      .argument("<number>")
      .argument("[focus...]", "what to concentrate on (passed to the agent)")
      .option("-f, --force", "start past the lifecycle table (audited), or take over a dead run's checkpoint")
      .option("--agent <name>", "route to this agent or skill instead of the language table")
      .option(
        "--language <language>",
        "route as if the task had this language (the original --lean, --logic …)",
      )
      .option("--runner <type>", "claude | command | scripted (default: baton.config.json, else claude)")
      .option("--script <file>", "run a scripted agent from this JSON script (dry runs, demos)")
      .option("--timeout <seconds>", "kill the agent's whole process group after this long")
      .option("--no-commit", "leave the result uncommitted")
      .option("--concurrency <n>", "implement: phases of one wave that run at once (default 4)")
      .option(
        "--max-iterations <n>",
        "implement: calls of a phase that keeps reporting work remaining (default 5)",
      )
      .option(
        "--isolate <mode>",
        "implement: worktree = each phase in its own git worktree, merged back in phase order",
      )
      .option("-n, --dry-run", "show GATE IN's verdict, the route, the paths and the prompt; write nothing")
      .option("--json", "print the result as JSON")
      .action(async (number: string, focus: string[], opts, cmd: Command) => {
        // `plan <number>` owns the positional, so `baton plan show N` is read here rather than as a subcommand.
        if (operation === "plan" && number === "show") {
          if (focus.length !== 1 || focus[0] === undefined) {
            const { UsageError } = await import("../shared/index.js");
            throw new UsageError("usage: baton plan show <number>");
          }
          return showPlan(focus[0], opts, cmd);
        }
        if (opts.dryRun) {
          const { planOnly } = await import("./commands/operate.js");
          const { formatPlan } = await import("./progress.js");
          const plan = await planOnly(operation, { ...opts, number, focus, repo: repoOf(cmd) });
          print(plan, opts, () => formatPlan(plan));
          if (!plan.gateIn.ok) process.exitCode = 1;
          return;
        }
        const { operate } = await import("./commands/operate.js");
        const { formatOperation, progressReporter } = await import("./progress.js");
        const progress = opts.json ? undefined : progressReporter(process.stderr);
        const abort = new AbortController();
        const onSignal = () => abort.abort();
        process.once("SIGINT", onSignal);
        try {
          const report = await operate(
            operation,
            { ...opts, number, focus, repo: repoOf(cmd) },
            progress?.onProgress,
            abort.signal,
          );
          progress?.stop();
          print(report, opts, () => formatOperation(report));
          if (!report.result.ok) process.exitCode = 1;
        } finally {
          progress?.stop();
          process.off("SIGINT", onSignal);
        }
      });
  }

  program
    .command("plan-show")
    .description("show a task's latest plan: phases, dependencies, checkboxes, waves and any problems")
    .argument("<number>")
    .option("--json", "print JSON")
    .action((number: string, opts, cmd: Command) => showPlan(number, opts, cmd));

  program
    .command("gate-in")
    .description(
      "inside a Claude Code session: open the checkpoint and print what to delegate (see /research …)",
    )
    .argument("<operation>", "research | plan | implement | revise")
    .argument("<number>")
    .argument("[focus...]", "what to concentrate on (passed to the agent)")
    .option(
      "-f, --force",
      "start past the lifecycle table (audited), or take over an open in-session checkpoint",
    )
    .option("--agent <name>", "route to this agent or skill instead of the language table")
    .option("--language <language>", "route as if the task had this language")
    .option("--json", "print JSON")
    .action(async (operation: string, number: string, focus: string[], opts, cmd: Command) => {
      const { formatGateIn, gateInCommand } = await import("./commands/gates.js");
      const result = await gateInCommand({
        ...opts,
        operation,
        number,
        focus,
        repo: repoOf(cmd),
        claudeSessionId: process.env["CLAUDE_CODE_SESSION_ID"] || undefined,
      });
      print(result, opts, () => formatGateIn(result, result.installedBin ?? selfCommand()));
      if (!result.ok) process.exitCode = 1;
    });

  program
    .command("gate-out")
    .description("inside a Claude Code session: verify the agent's result, record it and commit")
    .argument("<operation>", "research | plan | implement | revise")
    .argument("<number>")
    .requiredOption("--session <id>", "the session id gate-in printed")
    .option("--no-commit", "leave the result uncommitted")
    .option("--json", "print JSON")
    .action(async (operation: string, number: string, opts, cmd: Command) => {
      const { formatGateOut, gateOutCommand } = await import("./commands/gates.js");
      const result = await gateOutCommand({ ...opts, operation, number, repo: repoOf(cmd) });
      print(result, opts, () => formatGateOut(result));
      if (!result.ok) process.exitCode = 1;
    });

  program
    .command("recover")
    .description(
      "resolve runs that died (kill -9, crash): record a result that verifies, else roll the task back",
    )
    .argument("[number]", "only this task")
    .option(
      "-f, --force",
      "also give up in-session checkpoints (opened by gate-in), which no process tells about",
    )
    .option("--json", "print JSON")
    .action(async (number: string | undefined, opts, cmd: Command) => {
      const { recover } = await import("./commands/operate.js");
      const { formatRecovery } = await import("./progress.js");
      const actions = await recover({ number, force: opts.force, repo: repoOf(cmd) });
      print(actions, opts, () => formatRecovery(actions));
    });

  program
    .command("archive")
    .description(
      "move completed and abandoned tasks and their folders into specs/archive/, record orphan folders",
    )
    .option("-n, --dry-run", "show what would happen, write nothing")
    .option("--json", "print JSON")
    .action(async (opts, cmd: Command) => {
      const { archive } = await import("./commands/task.js");
      const { formatArchive } = await import("./format.js");
      const result = await archive({ ...opts, repo: repoOf(cmd) });
      print(result, opts, () => formatArchive(result));
    });

  program
    .command("errors")
    .description("list specs/errors.json, newest first")
    .option("--type <type>")
    .option("--task <number>")
    .option("--session <id>")
    .option("--severity <level>", "critical | high | medium | low")
    .addOption(new Option("--fix-status <status>", "unfixed | investigating | in_progress | fixed"))
    .option("--checkpoint <name>", "GATE_IN | DELEGATE | GATE_OUT | COMMIT")
    .option("--since <iso>", "only errors at or after this timestamp")
    .option("--limit <n>")
    .option("--json", "print JSON")
    .action(async (opts, cmd: Command) => {
      const { errors } = await import("./commands/errors.js");
      const { formatErrors } = await import("./format.js");
      const result = await errors({ ...opts, repo: repoOf(cmd) });
      print(result, opts, () => formatErrors(result));
    });

  program
    .command("doctor")
    .description("check the store's invariants and report each problem with its fix")
    .option("--fix", "repair what is safe to repair, after listing it")
    .option("--json", "print JSON")
    .action(async (opts, cmd: Command) => {
      const { doctor } = await import("./commands/doctor.js");
      const { formatDoctor } = await import("./format.js");
      const result = await doctor({ ...opts, repo: repoOf(cmd) });
      print(result, opts, () => formatDoctor(result, opts.fix ?? false));
      if (!result.healthy) process.exitCode = 1;
    });

  program
    .command("lint")
    .description("check .claude/ (or .opencode/) agents, commands, skills, hooks and specs/ for mistakes")
    .argument("[dir]", "root holding .claude/ (default: the current repository)")
    .option("--disable <rules>", "skip rules by id or prefix (repeat or comma-separate), e.g. git/", collect)
    .option("--only <rules>", "run only these rules (ids or prefixes)", collect)
    .option("--format <format>", "human | json | sarif (default: human)")
    .option("--json", "same as --format json")
    .option("--max-warnings <n>", "exit 1 when there are more than n warnings")
    .option("--list-rules", "list the rules and exit")
    .action(async (dir: string | undefined, opts, cmd: Command) => {
      const { lintCommand } = await import("./commands/lint.js");
      const { output, exitCode } = await lintCommand({ ...opts, dir, repo: repoOf(cmd) });
      process.stdout.write(`${output}\n`);
      process.exitCode = exitCode;
    });

  program
    .command("init")
    .description("install Baton's slash commands, agents and hooks for Claude Code into a repository")
    .argument("[dir]", "repository root (default: the current repository)")
    .option("-n, --dry-run", "print the diff of every file it would write; write nothing")
    .option("--uninstall", "remove what baton init added (files you changed are kept)")
    .option("-f, --force", "overwrite files that are not Baton's, keeping each as <name>.bak")
    .option("--hooks <type>", "command | http (default: command)")
    .option("--port <n>", "port of `baton serve` for --hooks http (default 4891)")
    .option("--bin <command>", "how Claude Code runs Baton (default: baton if on PATH, else node <path>)")
    .option("--json", "print JSON")
    .action(async (dir: string | undefined, opts, cmd: Command) => {
      const { formatInit, init } = await import("./commands/init.js");
      const result = await init({ ...opts, dir, repo: repoOf(cmd) });
      print(result, opts, () => formatInit(result));
      if (result.conflicts.length > 0) process.exitCode = 1;
    });

  // Claude Code hooks. bin/baton.js sends `baton hook …` straight to dist/hooks/main.js; this entry
  // exists for --help and for `node dist/cli/main.js hook …`.
  program
    .command("hook")
    .description("answer a Claude Code hook: reads the hook input JSON on stdin, prints the reply")
    .argument("<event>", "pre-tool-use | post-tool-use | stop | subagent-stop")
    .action(async (event: string) => {
      const { runHookCommand } = await import("../hooks/index.js");
      await runHookCommand(event);
    });

  program
    .command("serve")
    .description("serve Claude Code http hooks on 127.0.0.1: POST /hooks/<event>")
    .option("--port <n>", "port (default 4891; 0 picks a free one)")
    .action(async (opts: { port?: string }) => {
      const { DEFAULT_HOOK_PORT, HOOK_EVENTS, startHookServer } = await import("../hooks/index.js");
      const port = opts.port === undefined ? DEFAULT_HOOK_PORT : Number(opts.port);
      if (!Number.isInteger(port) || port < 0 || port > 65_535) {
        const { UsageError } = await import("../shared/index.js");
        throw new UsageError(`--port must be a port number, got "${opts.port}"`);
      }
      const server = await startHookServer({ port });
      const urls = Object.keys(HOOK_EVENTS).map((event) => `  POST ${server.url}/hooks/${event}\n`);
      process.stdout.write(`Baton hook server on ${server.url}\n${urls.join("")}`);
      await new Promise<void>((resolve) => {
        const stop = () => void server.close().then(resolve);
        process.once("SIGINT", stop);
        process.once("SIGTERM", stop);
      });
    });

  return program;
}

function reportError(thrown: unknown): number {
  if (thrown instanceof CommanderError) return thrown.exitCode === 0 ? 0 : 2;
  const error = fileSystemFailure(thrown) ?? thrown;
  if (isBatonError(error)) {
    process.stderr.write(`baton: ${error.message}\n`);
    if (error.hint) process.stderr.write(`  ${error.hint}\n`);
    if (process.env["BATON_DEBUG"]) process.stderr.write(`${error.stack}\n`);
    return error.code === "INVALID_ARGUMENT" ? 2 : 1;
  }
  process.stderr.write(
    `baton: unexpected failure: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  if (process.env["BATON_DEBUG"] && error instanceof Error) process.stderr.write(`${error.stack}\n`);
  else process.stderr.write("  Re-run with BATON_DEBUG=1 for the stack trace.\n");
  return 1;
}

/**
 * `baton task list | head -1`: the reader went away. What was not printed has no reader, so exit
 * quietly instead of failing on the next write with an EPIPE stack trace.
 */
function exitQuietlyOnClosedPipe(stream: NodeJS.WriteStream): void {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
    throw error;
  });
}

export async function main(argv: string[]): Promise<void> {
  exitQuietlyOnClosedPipe(process.stdout);
  exitQuietlyOnClosedPipe(process.stderr);
  try {
    await buildProgram().parseAsync(argv);
  } catch (error) {
    process.exitCode = reportError(error);
  }
}

/** process.exit drops whatever a pipe has not taken yet; wait for both streams to drain first. */
function flush(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => stream.write("", () => resolve()));
}

await main(process.argv);
await Promise.all([flush(process.stdout), flush(process.stderr)]);
process.exit(process.exitCode ?? 0);
