/** opencode's own words (opencode-contract.md), each once: its config files, a permission's actions, an agent's modes. */

/** The project config, `opencode.json` or `opencode.jsonc`; Baton writes the first when neither exists. */
export const OPENCODE_CONFIG_FILES = ["opencode.json", "opencode.jsonc"] as const;

/** What a permission rule may answer. */
export const PERMISSION_ACTIONS: ReadonlySet<string> = new Set(["allow", "ask", "deny"]);

/** An agent's `mode`: a sub-agent only, a primary agent only, or both. */
export const AGENT_MODES = ["subagent", "primary", "all"] as const;
