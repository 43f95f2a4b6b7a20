import { Command, CommanderError } from "commander";
import { exitCodeOf, fileSystemFailure, isBatonError } from "../shared/index.js";
import { takeNotices } from "../shared/notices.js";
import { packageVersion } from "../shared/package.js";
import { inert } from "../shared/terminal-text.js";
import { GROUPS } from "./help.js";
import { defineApprovals } from "./program/approval-commands.js";
import { defineBatch } from "./program/batch.js";
import { defineMaintenance } from "./program/maintenance.js";
import { defineOperations } from "./program/operations.js";
import { defineSessionCommands } from "./program/sessions.js";
import { defineTaskCommands } from "./program/tasks.js";

/**
 * The entry point: builds the program from cli/program/ (the argv and printing boundary; each command
 * module is imported when its command runs, so `baton task list` never loads code it does not use),
 * reports errors and exits. Nothing else in Baton exits the process.
 */
export function buildProgram(): Command {
  const program = new Command("baton")
    .description("Run AI coding agents through checkpoints enforced by code.")
    .version(packageVersion(), "-V, --version", "print Baton's version")
    .option(
      "-C, --repo <dir>",
      "repository root (default: the current directory or its nearest parent with specs/)",
    )
    .helpOption("-h, --help", "show help for a command")
    .showHelpAfterError()
    .exitOverride();
  program.addHelpText(
    "after",
    "\nRun `baton <command> --help` for a command's options and examples. Start with `baton task add <title>`.\n",
  );
  program.addHelpCommand(
    new Command("help")
      .argument("[command]", "a command, e.g. task")
      .description("show help for a command")
      .helpGroup(GROUPS.maintenance),
  );
  defineTaskCommands(program);
  defineOperations(program);
  defineApprovals(program);
  defineBatch(program);
  defineSessionCommands(program);
  defineMaintenance(program);
  return program;
}

function reportError(thrown: unknown): number {
  if (thrown instanceof CommanderError) return thrown.exitCode === 0 ? 0 : 2;
  const error = fileSystemFailure(thrown) ?? thrown;
  if (isBatonError(error)) {
    process.stderr.write(`baton: ${inert(error.message)}\n`);
    if (error.hint) process.stderr.write(`  ${inert(error.hint)}\n`);
    // The stable code a person looks up in docs/errors.md, unless the message already leads with it.
    if (!error.message.startsWith(error.code)) process.stderr.write(`  [${error.code}] (docs/errors.md)\n`);
    if (process.env["BATON_DEBUG"]) {
      process.stderr.write(`${error.stack}\n`);
      if (error.cause instanceof Error) process.stderr.write(`caused by: ${error.cause.stack}\n`);
    }
    return exitCodeOf(error);
  }
  process.stderr.write(
    `baton: unexpected failure: ${inert(error instanceof Error ? error.message : String(error))}\n`,
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
    // Under --json a failure is JSON too, on stdout where the answer would have been (the text stays on stderr).
    const code = reportError(error);
    if (argv.includes("--json") && !(error instanceof CommanderError)) printJsonError(error);
    process.exitCode = code;
  }
  for (const notice of takeNotices()) process.stderr.write(`baton: note: ${inert(notice)}\n`);
}

function printJsonError(thrown: unknown): void {
  const error = fileSystemFailure(thrown) ?? thrown;
  const body = isBatonError(error)
    ? {
        code: error.code,
        message: error.message,
        retryable: error.retryable,
        ...(error.hint ? { hint: error.hint } : {}),
      }
    : {
        code: "UNEXPECTED",
        message: error instanceof Error ? error.message : String(error),
        retryable: false,
      };
  process.stdout.write(`${JSON.stringify({ ok: false, error: body }, null, 2)}\n`);
}

/** process.exit drops whatever a pipe has not taken yet; wait for both streams to drain first. */
function flush(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => stream.write("", () => resolve()));
}

await main(process.argv);
await Promise.all([flush(process.stdout), flush(process.stderr)]);
process.exit(process.exitCode ?? 0);
