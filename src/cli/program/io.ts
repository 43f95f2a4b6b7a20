import { realpathSync } from "node:fs";
import { delimiter, join } from "node:path";
import type { Command } from "commander";
import { present } from "../../shared/present.js";
import { inert } from "../../shared/terminal-text.js";
import { examplesText, GROUPS, type HelpGroup } from "../help.js";

/**
 * The argv boundary, with main.ts: the files of cli/program/ define the commands, read their options
 * and print what the command functions (cli/commands/) return. Nothing else in Baton prints or reads argv.
 */
export interface Output {
  json?: boolean;
}

export function print(data: unknown, options: Output, human: () => string): void {
  // JSON escapes control characters itself; the text a person reads gets them shown, not obeyed.
  process.stdout.write(options.json ? `${JSON.stringify(data, null, 2)}\n` : `${inert(human())}\n`);
}

export const collect = (value: string, previous: string[] = []) => [...previous, value];

export function repoOf(command: Command): string {
  return (command.optsWithGlobals() as { repo?: string }).repo ?? process.cwd();
}

/** Puts a command under its group in `baton --help` and adds its examples to its own help. */
export function described<T extends Command>(command: T, group: HelpGroup | null, path: string): T {
  if (group) command.helpGroup(GROUPS[group]);
  const examples = examplesText(path);
  if (examples) command.addHelpText("after", examples);
  return command;
}

/**
 * How the model should call Baton back: `baton` when that is what runs on PATH, else this very script
 * through node (quoted), so a printed gate-out command works in Claude Code's Bash either way.
 */
export function selfCommand(): string {
  const override = process.env["BATON_SELF"];
  if (override) return override;
  const script = process.argv[1] ?? "baton";
  try {
    const real = realpathSync(script);
    for (const dir of (process.env["PATH"] ?? "").split(delimiter)) {
      const candidate = join(dir, "baton");
      if (present(candidate) && realpathSync(candidate) === real) return "baton";
    }
    return `node ${/[\s"'$`\\]/.test(real) ? JSON.stringify(real) : real}`;
  } catch {
    return "baton";
  }
}
