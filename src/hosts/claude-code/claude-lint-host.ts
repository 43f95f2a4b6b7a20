import type { LintHost } from "../../lint/index.js";

/**
 * What Claude Code reads in frontmatter, from the contract (§7–9, §13.3) and the key list the binary itself
 * recognises. An unknown key is only a warning: Claude Code ignores it, and new keys appear often.
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
export const CLAUDE_SKILL_KEYS = [
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

/** Tool names: contract §6.5 (main-thread and deferred tools) plus the long-standing built-ins. */
const KNOWN_TOOLS: ReadonlySet<string> = new Set([
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
function isKnownTool(entry: string): boolean {
  const name = entry.replace(/\(.*\)$/s, "").trim();
  if (name === "*") return true;
  // MCP tools: `mcp__server`, `mcp__server__tool`, `mcp__server__*`.
  if (/^mcp__[\w.-]+(__[\w.*-]+)?$/.test(name)) return true;
  return KNOWN_TOOLS.has(name);
}

const MODEL_ALIASES = new Set(["sonnet", "opus", "haiku", "fable", "inherit", "opusplan", "default"]);

/** Aliases (optionally `[1m]`), full ids like `claude-opus-4-5-20251101` or `claude-3-5-sonnet-…`. */
export function isClaudeModel(model: string): boolean {
  const bare = model.replace(/\[1m\]$/i, "");
  if (MODEL_ALIASES.has(bare)) return true;
  return /^claude-(\d+(-\d+)?-)?(opus|sonnet|haiku|fable)(-[\w.-]+)?$/.test(bare);
}

export const CLAUDE_MODEL_HINT =
  "Use sonnet, opus, haiku, fable or inherit, or a full id such as `claude-sonnet-4-5`.";

/** Claude Code's files as lint reads them: `.claude/`, its settings' hooks, CLAUDE.md. */
export const claudeLintHost: LintHost = {
  name: "claude",
  label: "Claude Code",
  tree: ".claude",
  settingsFiles: [".claude/settings.json", ".claude/settings.local.json"],
  settingsKind: "settings",
  memoryFiles: ["CLAUDE.md", "CLAUDE.local.md"],
  // Contract §6.5, §7, and the `fork` pseudo-type (§6.2).
  builtInAgents: [
    "general-purpose",
    "Explore",
    "Plan",
    "claude",
    "statusline-setup",
    "output-style-setup",
    "fork",
  ],
  pluginDirs: [],
  frontmatter: {
    keys: { agent: AGENT_KEYS, command: COMMAND_KEYS, skill: CLAUDE_SKILL_KEYS },
    requiredAgentKeys: ["name", "description"],
    loadsEveryAgentFile: false,
    withoutRequiredAgentKey: "Claude Code skips this agent",
    withUnknownKey: "Claude Code ignores it",
    withNonstandardYaml: "only Claude Code's quoting fallback reads it, other parsers reject the whole block",
    knowsModel: isClaudeModel,
    modelHint: CLAUDE_MODEL_HINT,
    knowsTool: isKnownTool,
  },
};
