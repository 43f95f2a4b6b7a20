import type { Host } from "../host.js";
import { opencodeLintRules } from "./lint-rules/index.js";
import { opencodeAgentFiles } from "./opencode-agent-files.js";
import { opencodeInstaller } from "./opencode-installer.js";
import { opencodeLintHost } from "./opencode-lint-host.js";

/**
 * opencode: commands in `.opencode/command/` (1-based `$1`), Baton's agents as opencode sub-agents, and
 * the plugin (plugin/baton.js) that turns opencode's plugin calls into Baton's hook input.
 */
export const opencode: Host = {
  name: "opencode",
  label: "opencode",
  primary: false,
  installer: opencodeInstaller,
  agentFiles: opencodeAgentFiles,
  lintHost: opencodeLintHost,
  lintRules: opencodeLintRules,
  installs: "commands, agents and a plugin in .opencode/",
  firstUse:
    "In opencode: the same commands in its TUI, or `opencode run --command research N`; its plugin asks Baton's hooks (docs/hosts.md).",
  contract: "src/hosts/opencode/opencode-contract.md",
};
