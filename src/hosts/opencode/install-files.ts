import { readFileSync } from "node:fs";
import { basename, join } from "node:path";
import {
  defaultAgentFiles,
  frontmatter,
  GATE_DESCRIPTIONS,
  GATE_OPERATIONS,
  relayBody,
  type TemplateFile,
} from "../../init/index.js";
import { parseFrontmatter } from "../../shared/frontmatter.js";
import { packageRoot } from "../../shared/package.js";
import type { Operation } from "../../state/index.js";
import type { OpencodeLayout } from "./opencode-layout.js";

/**
 * What `baton init --host opencode` installs in `.opencode/` (opencode contract 3): commands whose `!`
 * line runs GATE IN before the model is called, Baton's agents as opencode sub-agents, and the plugin
 * that asks Baton's hooks about every tool call.
 */
export const OPENCODE_DIRS = [".opencode", ".opencode/command", ".opencode/agent", ".opencode/plugin"];
export const OPENCODE_PLUGIN_PATH = ".opencode/plugin/baton.js";
const BIN_PLACEHOLDER = '"__BATON_BIN__"';
const SERVER_PLACEHOLDER = '"__BATON_SERVER__"';

/**
 * opencode numbers positional arguments from 1 (`$1` is the task number; Claude Code's is `$0`) and
 * answers the command in the session's primary agent, which must hand the work to the `task` tool.
 */
function gateCommand(bin: string, operation: Operation): string {
  return (
    frontmatter({ description: GATE_DESCRIPTIONS[operation] }) +
    [
      `Baton's GATE IN for ${operation} of task $1:`,
      "",
      `!\`${bin} gate-in ${operation} --host opencode $ARGUMENTS\``,
      "",
      "Follow Baton's output above exactly:",
      "1. If it says GATE IN refused, or shows an error instead, report that to the user word for word",
      "   and stop. Do nothing else.",
      "2. Otherwise call the task tool with the subagent_type it names and exactly the prompt it shows",
      "   between BEGIN PROMPT and END PROMPT, unchanged. Do none of the agent's work yourself: do not",
      "   read, search or edit the task's files, and do not write the metadata file, specs/state.json or",
      "   specs/TODO.md.",
      "3. If the task tool answers with an error from Baton, call it again with the task_id the error",
      "   names and the error as the prompt, so the same agent finishes its work.",
      "4. When the agent has returned, run the gate-out command printed above with the bash tool, with",
      "   the value of the `BATON_SESSION:` line as its --session.",
      "5. Report the gate-out result to the user as printed. If GATE OUT refused, say why; do not try to",
      "   repair the agent's work yourself.",
      "",
    ].join("\n")
  );
}

function relayCommand(bin: string, subcommand: string, description: string): string {
  return frontmatter({ description }) + relayBody(bin, subcommand);
}

/**
 * Each command goes where the repository keeps commands; one the repository already has by that name, in
 * either spelling, is targeted in its own folder, so `baton init` reports it as a conflict instead of
 * installing a second command of the same name beside it.
 */
export function opencodeCommandFiles(bin: string, layout: OpencodeLayout = DEFAULT_LAYOUT): TemplateFile[] {
  const file = (name: string, content: string) => ({
    path: `${layout.commands.get(name) ?? layout.commandsDir}/${name}.md`,
    content,
  });
  return [
    file("task", relayCommand(bin, "task", "Create, list, show, edit and move Baton tasks in specs/")),
    ...GATE_OPERATIONS.map((op) => file(op, gateCommand(bin, op))),
    file(
      "todo",
      relayCommand(
        bin,
        "archive",
        "Archive completed and abandoned tasks and their folders into specs/archive/",
      ),
    ),
    file("errors", relayCommand(bin, "errors", "List specs/errors.json, newest first")),
  ];
}

/**
 * Baton's agents as opencode sub-agents: the same prompt, with opencode's frontmatter. Claude Code's
 * `tools` list has no opencode meaning (there `tools` switches tools off by name), so every tool stays on.
 */
export function opencodeAgentFiles(layout: OpencodeLayout = DEFAULT_LAYOUT): TemplateFile[] {
  // An agent the repository defines itself (ModelChecker's `subagents/general-research-agent`) is the one
  // routing uses; Baton's own of that name would only shadow it.
  const wanted = defaultAgentFiles().filter((f) => !layout.agents.has(basename(f.path, ".md")));
  return wanted.map((file) => {
    const lines = file.content.split("\n");
    const parsed = parseFrontmatter(lines);
    const description = parsed?.data?.["description"];
    const body = parsed ? lines.slice(parsed.endLine).join("\n") : file.content;
    const name = file.path.slice(file.path.lastIndexOf("/") + 1);
    return {
      path: `${layout.agentsDir}/${name}`,
      content:
        frontmatter({
          description: typeof description === "string" ? description : name.replace(/\.md$/, ""),
          mode: "subagent",
        }) + body,
    };
  });
}

/**
 * The plugin, with the command that runs this Baton written in, and the repository's hook server (null
 * when `baton init` installs command hooks: every call then runs `baton hook`).
 */
export function opencodePluginFile(bin: string, serverPort: number | null): TemplateFile {
  const source = readFileSync(join(packageRoot(), "dist", "hosts", "opencode", "baton-plugin.js"), "utf8");
  const server = serverPort === null ? "null" : JSON.stringify(`http://127.0.0.1:${serverPort}`);
  return {
    path: OPENCODE_PLUGIN_PATH,
    content: source.replace(BIN_PLACEHOLDER, JSON.stringify(bin)).replace(SERVER_PLACEHOLDER, server),
  };
}

export function opencodeFiles(
  bin: string,
  serverPort: number | null,
  layout?: OpencodeLayout,
): TemplateFile[] {
  return [
    ...opencodeCommandFiles(bin, layout),
    ...opencodeAgentFiles(layout),
    opencodePluginFile(bin, serverPort),
  ];
}

const DEFAULT_LAYOUT: OpencodeLayout = {
  commandsDir: ".opencode/command",
  agentsDir: ".opencode/agent",
  commands: new Map(),
  agents: new Set(),
};
