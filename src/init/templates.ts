import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseFrontmatter } from "../shared/frontmatter.js";
import { defaultAgentsDir } from "../shared/package.js";
import type { Operation } from "../state/index.js";

/** A file `baton init` writes, by its path relative to the repository root. */
export interface TemplateFile {
  path: string;
  content: string;
}

export const GATE_OPERATIONS = ["research", "plan", "implement", "revise"] as const;

export const GATE_DESCRIPTIONS: Record<Operation, string> = {
  research: "Research a task through Baton's gates (GATE IN, the research agent, GATE OUT, commit)",
  plan: "Write a task's implementation plan through Baton's gates (GATE IN, the planner, GATE OUT, commit)",
  implement: "Implement a planned task through Baton's gates (GATE IN, the implementer, GATE OUT, commit)",
  revise: "Revise a task's plan through Baton's gates (GATE IN, the reviser, GATE OUT, commit)",
};

/**
 * A YAML scalar for the frontmatter: plain when the frontmatter parser that the engine and lint use
 * reads it back unchanged, else double-quoted (JSON strings are valid YAML), so a hint like
 * `[--dry-run]` is not read as a list and a description with `: ` needs no fallback.
 */
export function yamlScalar(value: string): string {
  const read = parseFrontmatter(["---", `key: ${value}`, "---"]);
  const plain =
    read !== null && read.errors.length === 0 && read.data?.["key"] === value && value === value.trim();
  return plain ? value : JSON.stringify(value);
}

export function frontmatter(fields: Record<string, string>): string {
  const lines = Object.entries(fields).map(([key, value]) => `${key}: ${yamlScalar(value)}`);
  return `---\n${lines.join("\n")}\n---\n`;
}

/** `Bash(<bin> <sub>:*)`: Claude Code's prefix rule, matching the commands exactly as the files write them. */
export function bashRule(bin: string, subcommand: string): string {
  return `Bash(${bin} ${subcommand}:*)`;
}

/**
 * research/plan/implement/revise: GATE IN runs in the `!` line before the model sees anything, so a
 * refused gate costs no agent call; the model's only jobs are to delegate and to close the gate.
 */
export function gateCommand(bin: string, operation: Operation): string {
  const gateOut = `${bin} gate-out ${operation} $0 --session <id>`;
  return (
    frontmatter({
      description: GATE_DESCRIPTIONS[operation],
      "argument-hint": "<task-number> [focus]",
      "allowed-tools": [bashRule(bin, "gate-in"), bashRule(bin, "gate-out"), "Agent", "Read"].join(", "),
    }) +
    [
      `Baton's GATE IN for ${operation} of task $0:`,
      "",
      `!\`${bin} gate-in ${operation} $ARGUMENTS\``,
      "",
      "Follow Baton's output above exactly:",
      "1. If it says GATE IN refused, or shows an error instead, report that to the user word for word",
      "   and stop. Do nothing else.",
      "2. Otherwise invoke the agent it names with the Agent tool IN THE FOREGROUND",
      "   (`run_in_background: false`), with exactly the prompt it shows between BEGIN PROMPT and",
      "   END PROMPT, unchanged. Do none of the agent's work yourself: do not read, search or edit the",
      "   task's files, and do not write the metadata file, specs/state.json or specs/TODO.md.",
      "3. When the agent has returned, run the gate-out command printed above with the Bash tool:",
      `   \`${gateOut}\`, where <id> is the value of the \`BATON_SESSION:\` line.`,
      "4. Report the gate-out result to the user as printed. If GATE OUT refused, say why; do not try to",
      "   repair the agent's work yourself.",
      "",
    ].join("\n")
  );
}

/** The body of task/todo/errors, the same for every host: Baton's output is the answer, relayed as is. */
export function relayBody(bin: string, subcommand: string): string {
  return [
    `Baton ran \`baton ${subcommand} $ARGUMENTS\`:`,
    "",
    `!\`${bin} ${subcommand} $ARGUMENTS\``,
    "",
    "Report this output to the user as it is. Do not edit anything under specs/ yourself; if the",
    "command failed, say why and what its message suggests.",
    "",
  ].join("\n");
}

/** task/todo/errors: deterministic Baton commands whose output is the answer; the model only relays it. */
function relayCommand(bin: string, subcommand: string, description: string, hint: string): string {
  return (
    frontmatter({
      description,
      "argument-hint": hint,
      "allowed-tools": bashRule(bin, subcommand),
    }) + relayBody(bin, subcommand)
  );
}

export function commandFiles(bin: string): TemplateFile[] {
  const file = (name: string, content: string) => ({ path: `.claude/commands/${name}.md`, content });
  return [
    file(
      "task",
      relayCommand(
        bin,
        "task",
        "Create, list, show, edit and move Baton tasks in specs/",
        "add <title> | list | show <n> | edit <n> | status <n> <status> | abandon <n> | expand <n>",
      ),
    ),
    ...GATE_OPERATIONS.map((op) => file(op, gateCommand(bin, op))),
    file(
      "todo",
      relayCommand(
        bin,
        "archive",
        "Archive completed and abandoned tasks and their folders into specs/archive/",
        "[--dry-run]",
      ),
    ),
    file(
      "errors",
      relayCommand(
        bin,
        "errors",
        "List specs/errors.json, newest first",
        "[--task <n>] [--type <type>] [--severity <level>] [--limit <n>]",
      ),
    ),
  ];
}

/** Baton's default agents, copied verbatim so Claude Code can run what gate-in names. */
export function agentFiles(): TemplateFile[] {
  const dir = defaultAgentsDir();
  return readdirSync(dir)
    .filter((name) => /^baton-.*\.md$/.test(name))
    .sort()
    .map((name) => ({ path: `.claude/agents/${name}`, content: readFileSync(join(dir, name), "utf8") }));
}

/** Permission rules for every Baton command the slash commands run, so gates are never prompted. */
export function permissionRules(bin: string): string[] {
  return ["gate-in", "gate-out", "task", "archive", "errors"].map((sub) => bashRule(bin, sub));
}
