/** The operations, in lifecycle order: every list of them (schemas, CLI commands, slash commands) derives from this. */
export const OPERATIONS = ["research", "plan", "implement", "revise"] as const;
export type Operation = (typeof OPERATIONS)[number];
