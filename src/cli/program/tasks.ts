import type { Command } from "commander";
import { collect, described, print, repoOf } from "./io.js";

const NUMBER = "task number (as in `baton task list`)";

/** Bash calls of a Claude Code session carry its id: such a caller may not take a task from its gate. */
const insideSession = () => Boolean(process.env["CLAUDE_CODE_SESSION_ID"]);

export function defineTaskCommands(program: Command): void {
  const task = described(
    program.command("task").description("add, list, show, edit, status, abandon, recover, expand"),
    "tasks",
    "task",
  );
  defineTaskAdd(task);
  defineTaskList(task);
  defineTaskShow(task);
  defineTaskEdit(task);
  defineTaskStatus(task);
  defineTaskAbandon(task);
  defineTaskRecover(task);
  defineTaskExpand(task);
}

function defineTaskAdd(task: Command): void {
  described(
    task
      .command("add")
      .description("create a task (number from next_project_number, slug from the title)")
      .argument("<title...>", "the task's title (quotes optional)")
      .option("-d, --description <text>", "description")
      .option("-l, --language <language>", "language (default: detected from the title, else general)")
      .option("-p, --priority <priority>", "critical | high | medium | low")
      .option("-e, --effort <effort>", 'effort estimate, e.g. "2 hours"')
      .option("--depends <numbers>", 'task numbers this depends on, e.g. "12,14-16"')
      .option("--json", "print the created task as JSON")
      .action(async (title: string[], opts, cmd: Command) => {
        const { taskAdd } = await import("../commands/task.js");
        const { formatTask } = await import("../task-format.js");
        const view = await taskAdd({ ...opts, title: title.join(" "), repo: repoOf(cmd) });
        print(view, opts, () => `Created task ${view.number}: ${view.title}\n\n${formatTask(view)}`);
      }),
    null,
    "task add",
  );
}

function defineTaskList(task: Command): void {
  described(
    task
      .command("list")
      .description("list active tasks")
      .option("-s, --status <status>", "only these statuses (repeat or comma-separate)", collect)
      .option("-l, --language <language>", "only these languages (repeat or comma-separate)", collect)
      .option("--json", "print JSON")
      .action(async (opts, cmd: Command) => {
        const { taskList, taskRows } = await import("../commands/task.js");
        const { formatTaskList } = await import("../task-format.js");
        const options = { ...opts, repo: repoOf(cmd) };
        const rows = opts.json ? await taskList(options) : await taskRows(options);
        print(rows, opts, () => formatTaskList(rows));
      }),
    null,
    "task list",
  );
}

function defineTaskShow(task: Command): void {
  described(
    task
      .command("show")
      .description("show one task with its artifacts")
      .argument("<number>", NUMBER)
      .option("--json", "print JSON (includes the raw state.json entry)")
      .action(async (number: string, opts, cmd: Command) => {
        const { taskShow } = await import("../commands/task.js");
        const { formatTask } = await import("../task-format.js");
        const view = await taskShow({ number, repo: repoOf(cmd) });
        print(view, opts, () => formatTask(view));
      }),
    null,
    "task show",
  );
}

function defineTaskEdit(task: Command): void {
  described(
    task
      .command("edit")
      .description("change a task's title, description, language, priority, effort or dependencies")
      .argument("<number>", NUMBER)
      .option("-t, --title <title>", "new title (the TODO.md heading)")
      .option("-d, --description <text>", "new description")
      .option("-l, --language <language>", "new language (routes its next operations)")
      .option("-p, --priority <priority>", "critical | high | medium | low")
      .option("-e, --effort <effort>", 'effort estimate, e.g. "2 hours"')
      .option("--depends <numbers>", 'replace dependencies ("none" clears them)')
      .option("-f, --force", "edit even while a run holds the task (outside a Claude Code session; audited)")
      .option("--json", "print the task as JSON")
      .action(async (number: string, opts, cmd: Command) => {
        const { taskEdit } = await import("../commands/task.js");
        const { formatTask } = await import("../task-format.js");
        const view = await taskEdit({ ...opts, number, repo: repoOf(cmd), insideSession: insideSession() });
        print(view, opts, () => `Updated task ${view.number}.\n\n${formatTask(view)}`);
      }),
    null,
    "task edit",
  );
}

function defineTaskStatus(task: Command): void {
  described(
    task
      .command("status")
      .description("move a task to another status through the lifecycle table")
      .argument("<number>", NUMBER)
      .argument("<status>", "not_started | researched | planned | partial | blocked | completed")
      .option("-r, --reason <text>", "why (required for blocked; recorded with --force)")
      .option("--summary <text>", "completion summary (for completed)")
      .option(
        "-f, --force",
        "override the lifecycle table, or take the task back from a run that holds it (outside a Claude Code session); audited",
      )
      .option("--json", "print JSON")
      .action(async (number: string, status: string, opts, cmd: Command) => {
        const { taskStatus } = await import("../commands/task.js");
        const change = await taskStatus({
          ...opts,
          number,
          status,
          repo: repoOf(cmd),
          insideSession: insideSession(),
        });
        print(change, opts, () =>
          [
            `Task ${change.number}: ${change.from} → ${change.to}${change.forced ? " (forced; audit note recorded)" : ""}`,
            ...change.autoCompleted.map((n) => `Task ${n}: all subtasks done → completed`),
          ].join("\n"),
        );
      }),
    null,
    "task status",
  );
}

function defineTaskAbandon(task: Command): void {
  described(
    task
      .command("abandon")
      .description("abandon tasks and move them to the archive")
      .argument("<numbers...>", 'task numbers and ranges: 12-15, "12, 14"')
      .option("-r, --reason <text>", "why, recorded as abandoned_reason")
      .option(
        "-f, --force",
        "abandon even while a run holds the task (outside a Claude Code session; audited)",
      )
      .option("--json", "print JSON")
      .action(async (numbers: string[], opts, cmd: Command) => {
        const { taskAbandon } = await import("../commands/task.js");
        const result = await taskAbandon({
          ...opts,
          numbers,
          repo: repoOf(cmd),
          insideSession: insideSession(),
        });
        print(result, opts, () =>
          [
            `Abandoned and archived: ${result.abandoned.join(", ")}`,
            ...result.autoCompleted.map((n) => `Task ${n}: all subtasks done → completed`),
          ].join("\n"),
        );
      }),
    null,
    "task abandon",
  );
}

function defineTaskRecover(task: Command): void {
  described(
    task
      .command("recover")
      .description("bring archived tasks back as not_started")
      .argument("<numbers...>", 'archived task numbers and ranges: 12-15, "12, 14"')
      .option("--json", "print JSON")
      .action(async (numbers: string[], opts, cmd: Command) => {
        const { taskRecover } = await import("../commands/task.js");
        const result = await taskRecover({ numbers, repo: repoOf(cmd) });
        print(result, opts, () =>
          result.recovered
            .map((r) => `Recovered task ${r.number}${r.folder ? ` (folder ${r.folder})` : ""}`)
            .join("\n"),
        );
      }),
    null,
    "task recover",
  );
}

function defineTaskExpand(task: Command): void {
  described(
    task
      .command("expand")
      .description("split a task into subtasks; it completes itself when they are all done")
      .argument("<number>", NUMBER)
      .requiredOption("-s, --subtask <title>", "a subtask title (repeat for each)", collect)
      .option(
        "-f, --force",
        "expand even while a run holds the task (outside a Claude Code session; audited)",
      )
      .option("--json", "print JSON")
      .action(async (number: string, opts, cmd: Command) => {
        const { taskExpand } = await import("../commands/task.js");
        const result = await taskExpand({
          ...opts,
          number,
          repo: repoOf(cmd),
          insideSession: insideSession(),
        });
        print(result, opts, () => `Task ${result.parent} expanded into ${result.subtasks.join(", ")}`);
      }),
    null,
    "task expand",
  );
}
