import { hostOf } from "../../file-host.js";
import type { LintFile } from "../../rule-types.js";

/**
 * What Claude Code accepts in frontmatter, from the contract (§7–9, §13.3) and the key list the binary
 * itself recognises. An unknown key is only a warning: Claude Code ignores it, and new keys appear often.
 */
const AGENT_KEYS = [
  "name",
  "description",
  "tools",
  "disallowedTools",
  "model",
  "permissionMode",
  "color",
  "skills",
  "mcpServers",
  "hooks",
  "memory",
  "maxTurns",
  "background",
  "effort",
  "initialPrompt",
  "isolation",
  "omitClaudeMd",
];
// Commands and skills share one loader in Claude Code (a command is a single-file skill), so a key valid
// in one is read in the other too.
const COMMAND_KEYS = [
  "description",
  "argument-hint",
  "allowed-tools",
  "model",
  "disable-model-invocation",
  "arguments",
  "when_to_use",
  "effort",
  "shell",
];
const SKILL_KEYS = [
  ...COMMAND_KEYS,
  "name",
  "license",
  "version",
  "user-invocable",
  "context",
  "agent",
  "hooks",
  "paths",
  "metadata",
  "compatibility",
];
// opencode's agent and command keys (`AgentConfig`, `CommandV2.Info`; opencode contract 3.2, 3.4): its own
// vocabulary, not Claude Code's. An agent's name is its path, so `name` is not one of them.
const OPENCODE_AGENT_KEYS = [
  "description",
  "mode",
  "model",
  "variant",
  "temperature",
  "top_p",
  "prompt",
  "tools",
  "permission",
  "disable",
  "hidden",
  "options",
  "color",
  "steps",
  "maxSteps",
];
const OPENCODE_COMMAND_KEYS = ["description", "agent", "model", "subtask", "template"];

export function knownKeys(file: LintFile): ReadonlySet<string> {
  const opencode = hostOf(file.path) === "opencode";
  if (file.kind === "agent") return new Set(opencode ? OPENCODE_AGENT_KEYS : AGENT_KEYS);
  if (file.kind === "skill") return new Set(SKILL_KEYS);
  return new Set(opencode ? OPENCODE_COMMAND_KEYS : COMMAND_KEYS);
}

/** Tool names: contract §6.5 (main-thread and deferred tools) plus the long-standing built-ins. */
export const KNOWN_TOOLS: ReadonlySet<string> = new Set([
  "Agent",
  "Bash",
  "Edit",
  "ListAgents",
  "Read",
  "ReportFindings",
  "ScheduleWakeup",
  "Skill",
  "ToolSearch",
  "Workflow",
  "DeferredToolPlaceholder",
  "Write",
  "WebFetch",
  "WebSearch",
  "SendMessage",
  "TaskStop",
  "NotebookEdit",
  "NotebookRead",
  "CronCreate",
  "CronDelete",
  "CronList",
  "Monitor",
  "EnterWorktree",
  "ExitWorktree",
  "Glob",
  "Grep",
  "TodoWrite",
  "MultiEdit",
  "Task",
  "TaskOutput",
  "SlashCommand",
  "KillShell",
  "BashOutput",
  "ExitPlanMode",
  "EnterPlanMode",
  "AskUserQuestion",
  "LS",
  "LSP",
]);

/** Whether a `tools`/`allowed-tools` entry names a tool Claude Code has. */
export function isKnownTool(entry: string): boolean {
  const name = entry.replace(/\(.*\)$/s, "").trim();
  if (name === "*") return true;
  // MCP tools: `mcp__server`, `mcp__server__tool`, `mcp__server__*`.
  if (/^mcp__[\w.-]+(__[\w.*-]+)?$/.test(name)) return true;
  return KNOWN_TOOLS.has(name);
}

/** Splits `Read, Bash(git add:*), Edit` at commas outside parentheses; a YAML list is taken as is. */
export function toolEntries(value: unknown): string[] {
  if (Array.isArray(value))
    return value.filter((v): v is string => typeof v === "string").map((v) => v.trim());
  if (typeof value !== "string") return [];
  const out: string[] = [];
  let depth = 0;
  let current = "";
  for (const char of value) {
    if (char === "(") depth++;
    else if (char === ")") depth = Math.max(0, depth - 1);
    if (char === "," && depth === 0) {
      out.push(current.trim());
      current = "";
    } else current += char;
  }
  out.push(current.trim());
  return out.filter((entry) => entry !== "");
}

const MODEL_ALIASES = new Set(["sonnet", "opus", "haiku", "fable", "inherit", "opusplan", "default"]);

/** Aliases (optionally `[1m]`), full ids like `claude-opus-4-5-20251101` or `claude-3-5-sonnet-…`. */
export function isKnownModel(model: string, opencode: boolean): boolean {
  const bare = model.replace(/\[1m\]$/i, "");
  if (MODEL_ALIASES.has(bare)) return true;
  if (/^claude-(\d+(-\d+)?-)?(opus|sonnet|haiku|fable)(-[\w.-]+)?$/.test(bare)) return true;
  // opencode names models `provider/model` and routes them itself.
  return opencode && /^[\w.-]+\/[\w.:@-]+$/.test(bare);
}
