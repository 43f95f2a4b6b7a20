import {
  bashRule,
  defaultAgentFiles,
  frontmatter,
  GATE_DESCRIPTIONS,
  GATE_OPERATIONS,
  relayBody,
  type TemplateFile,
} from "../../init/index.js";
import { PERSON_COMMANDS } from "../../shared/person-commands.js";
import type { Operation } from "../../state/index.js";

/** What `baton init` writes for Claude Code: slash commands, Baton's agents, and the permission rules they need. */

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

/**
 * /approve and /reject: the person's own answer, recorded by the `!` line as they type the command — no tool
 * call, so nothing the model does is involved. The model may not invoke them (`disable-model-invocation`), and
 * Baton's PreToolUse hook refuses its calls of these commands (hooks/refuse-person-commands.ts).
 */
function personCommand(bin: string, sub: (typeof PERSON_COMMANDS)[number]): string {
  return (
    frontmatter({
      description:
        sub === "approve"
          ? "Approve task N's current plan yourself: implement may then run it while its content stays as approved"
          : "Reject task N's current plan yourself, saying why: revise makes the next one",
      "argument-hint":
        sub === "approve" ? "<task-number> [--sha256 <hash>]" : '<task-number> --reason "<why>"',
      "allowed-tools": bashRule(bin, sub),
      "disable-model-invocation": true,
    }) +
    [
      `!\`${bin} ${sub} $ARGUMENTS\``,
      "",
      "Baton recorded the person's answer above (or says why it did not). Report its output to the user word for",
      "word and stop. Do not run any command: only the person answers for a plan.",
      "",
    ].join("\n")
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
    ...PERSON_COMMANDS.map((sub) => file(sub, personCommand(bin, sub))),
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
  return defaultAgentFiles().map((file) => ({ path: `.claude/agents/${file.path}`, content: file.content }));
}

/** The Baton commands the slash commands run (each writes the store under its own checks). */
export const BATON_COMMANDS = ["gate-in", "gate-out", "task", "archive", "errors"] as const;

/** Permission rules for every Baton command the slash commands run, so gates are never prompted. */
export function permissionRules(bin: string): string[] {
  return BATON_COMMANDS.map((sub) => bashRule(bin, sub));
}
