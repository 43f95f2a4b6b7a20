import type { HostSession } from "../host-session.js";
import { claudeSettings, weakenedClaudeSettings } from "./weakened-settings.js";

/** A live Claude Code session: its `Agent` tool delegates, and its own sandbox keeps Baton's key out of reach. */
export const claudeSession: HostSession = {
  delegationLines: (gate) => [
    `Now invoke the agent "${gate.agent}" with the Agent tool, in the foreground:`,
    `  subagent_type: ${gate.agent}`,
    `  description: ${gate.operation} task ${gate.taskNumber}`,
    "  run_in_background: false",
    "  prompt: exactly the text between the BEGIN PROMPT and END PROMPT lines below.",
  ],
  delegationCall: (agent) =>
    `invoke it with the Agent tool${agent ? ` (subagent_type "${agent}", run_in_background: false)` : ""}`,
  keyReach(root) {
    // The local file wins over the shared one.
    const [shared, local] = claudeSettings(root).map(
      ({ settings }) => (settings["sandbox"] as Record<string, unknown> | undefined)?.["enabled"],
    );
    const on = (local ?? shared) === true;
    return on ? undefined : "Claude Code's sandbox is off in this repository (.claude/settings*.json)";
  },
  weakenedSettings: weakenedClaudeSettings,
};
