import type { LintHost } from "../../lint/index.js";
import { CLAUDE_MODEL_HINT, CLAUDE_SKILL_KEYS, isClaudeModel } from "../claude-code/claude-lint-host.js";
import { OPENCODE_CONFIG_FILES } from "./opencode-words.js";

// opencode's agent and command keys (`AgentConfig`, `CommandV2.Info`; opencode contract 3.2, 3.4): its own
// vocabulary, not Claude Code's. An agent's name is its path, so `name` is not one of them.
const AGENT_KEYS = [
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
const COMMAND_KEYS = ["description", "agent", "model", "subtask", "template"];

/** opencode's files as lint reads them: `.opencode/`, `opencode.json(c)` at the root, AGENTS.md. */
export const opencodeLintHost: LintHost = {
  name: "opencode",
  label: "opencode",
  tree: ".opencode",
  settingsFiles: [...OPENCODE_CONFIG_FILES],
  settingsKind: "host-config",
  memoryFiles: ["AGENTS.md"],
  // `opencode agent list`: build and plan (primary), general and explore (sub-agents); contract 3.2.
  builtInAgents: ["build", "plan", "general", "explore"],
  // opencode imports every script of plugin/ (contract 5.1).
  pluginDirs: ["plugin", "plugins"],
  frontmatter: {
    // opencode loads skills in Claude Code's format, from its own tree and from `.claude/skills/`.
    keys: { agent: AGENT_KEYS, command: COMMAND_KEYS, skill: CLAUDE_SKILL_KEYS },
    // opencode names an agent by its path; without a description a sub-agent is listed to the model blank.
    requiredAgentKeys: ["description"],
    loadsEveryAgentFile: true,
    withoutRequiredAgentKey:
      "opencode lists it to the model with no description, so the model cannot tell when to use it",
    withUnknownKey: "opencode does not read it (it passes it to the model provider as an option)",
    withNonstandardYaml: "opencode's parser rejects the whole block",
    // opencode names models `provider/model` and routes them itself.
    knowsModel: (model) => isClaudeModel(model) || /^[\w.-]+\/[\w.:@-]+$/.test(model.replace(/\[1m\]$/i, "")),
    modelHint: CLAUDE_MODEL_HINT,
    // opencode's `tools` is a map of lowercase names to booleans, a different vocabulary.
    knowsTool: null,
  },
};
