/** The operations, in lifecycle order: every list of them (schemas, CLI commands, slash commands) derives from this. */
export const OPERATIONS = ["research", "plan", "implement", "revise"] as const;
export type Operation = (typeof OPERATIONS)[number];

/** The operations as a person types them in a session: "/research N, /plan N, …", for messages. */
export const OPERATION_COMMANDS = OPERATIONS.map((operation) => `/${operation} N`).join(", ");
