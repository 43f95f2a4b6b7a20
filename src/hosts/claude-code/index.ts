import { OPERATION_COMMANDS } from "../../shared/operation-names.js";
import type { Host } from "../host.js";
import { claudeAgentFiles } from "./claude-agent-files.js";
import { claudeInstaller } from "./claude-installer.js";
import { claudeLintHost } from "./claude-lint-host.js";
import { claudeLintRules } from "./lint-rules/index.js";

/**
 * Claude Code: slash commands whose `!` line runs GATE IN, Baton's hooks in `.claude/settings.json`
 * (Claude Code's hook input is Baton's hook protocol as it is), and agents in `.claude/agents/`.
 */
export const claudeCode: Host = {
  name: "claude",
  label: "Claude Code",
  primary: true,
  installer: claudeInstaller,
  agentFiles: claudeAgentFiles,
  lintHost: claudeLintHost,
  lintRules: claudeLintRules,
  installs: "slash commands and agents in .claude/, Baton's hooks in .claude/settings.json",
  firstUse: `In Claude Code: /task add …, ${OPERATION_COMMANDS}, /todo, /errors.`,
  contract: "src/hosts/claude-code/claude-code-contract.md",
};
