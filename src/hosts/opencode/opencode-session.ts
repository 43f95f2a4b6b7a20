import type { HostSession } from "../host-session.js";

/** A live opencode session: its `task` tool delegates, and it runs the model's commands without a sandbox. */
export const opencodeSession: HostSession = {
  delegationLines: (gate) => [
    `Now call the task tool to delegate to the agent "${gate.agent}":`,
    `  subagent_type: ${gate.agent}`,
    `  description: ${gate.operation} task ${gate.taskNumber}`,
    "  prompt: exactly the text between the BEGIN PROMPT and END PROMPT lines below.",
    "If the task tool answers with an error from Baton, call it again with the task_id that error names and",
    "the error as the prompt, so the same agent finishes its work.",
  ],
  delegationCall: (agent) => `call the task tool${agent ? ` with subagent_type "${agent}"` : ""}`,
  keyReach: () => "opencode runs the model's commands without a sandbox",
  // Its permission rules are checked by its plugin, which asks Baton's hooks; nothing to compare yet.
  weakenedSettings: () => [],
};
