/**
 * What a hook answers (contract 5.1, 5.3) and what it logs. `reply` is printed as-is; the other
 * fields only feed the log line.
 */
export type DecisionKind = "allow" | "deny" | "block" | "updated";

export interface Decision {
  decision: DecisionKind;
  reply: Record<string, unknown>;
  reason?: string;
  /** Why an allow is notable: "loop guard", "stop cap", "bound claude session", … */
  note?: string;
  task?: number;
}

export function allow(note?: string, task?: number): Decision {
  return { decision: "allow", reply: {}, ...(note ? { note } : {}), ...(task === undefined ? {} : { task }) };
}

/** PreToolUse: the tool does not run; the model receives the reason as the tool's error. */
export function deny(reason: string, task?: number): Decision {
  return {
    decision: "deny",
    reason,
    ...(task === undefined ? {} : { task }),
    reply: {
      hookSpecificOutput: {
        hookEventName: "PreToolUse",
        permissionDecision: "deny",
        permissionDecisionReason: reason,
      },
    },
  };
}

/** PreToolUse: the tool runs with `updatedInput` instead of what the model wrote. */
export function updateInput(updatedInput: Record<string, unknown>, reason: string, task?: number): Decision {
  return {
    decision: "updated",
    reason,
    ...(task === undefined ? {} : { task }),
    reply: {
      hookSpecificOutput: {
        hookEventName: "PreToolUse",
        permissionDecision: "allow",
        permissionDecisionReason: reason,
        updatedInput,
      },
    },
  };
}

/** Stop / SubagentStop: the agent continues with the reason as feedback; PostToolUse: a system note. */
export function block(reason: string, task?: number, note?: string): Decision {
  return {
    decision: "block",
    reason,
    ...(task === undefined ? {} : { task }),
    ...(note ? { note } : {}),
    reply: { decision: "block", reason },
  };
}
