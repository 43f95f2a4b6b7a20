/** The operations, in lifecycle order: every list of them (schemas, CLI commands, slash commands) derives from this. */
export const OPERATIONS = ["research", "plan", "implement", "revise"] as const;
export type Operation = (typeof OPERATIONS)[number];

export function isOperation(value: string): value is Operation {
  return (OPERATIONS as readonly string[]).includes(value);
}

/** The operations as a person types them in a session: "/research N, /plan N, …", for messages. */
export const OPERATION_COMMANDS = OPERATIONS.map((operation) => `/${operation} N`).join(", ");

/**
 * What each operation's agent returns (format reference 10): the status its `.return-meta.json` ends with when the
 * work is done (`partial` is accepted everywhere as resumable) and the type of the artifact it writes. GATE OUT,
 * the sub-agent stop hook and the prompt read it here.
 */
export const AGENT_RETURN: Record<Operation, { status: string; artifact: "research" | "plan" | "summary" }> =
  {
    research: { status: "researched", artifact: "research" },
    plan: { status: "planned", artifact: "plan" },
    implement: { status: "implemented", artifact: "summary" },
    revise: { status: "planned", artifact: "plan" },
  };
