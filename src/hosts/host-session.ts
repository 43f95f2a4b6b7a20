/** What gate-in's text needs to tell a host's model how to call the sub-agent. */
export interface GateDelegation {
  agent: string;
  operation: string;
  taskNumber: number;
}

/** What a live session of a host is told in its own words, and what its commands can reach. */
export interface HostSession {
  /** gate-in's delegation instructions, in the words of the host's own sub-agent tool. */
  delegationLines(gate: GateDelegation): string[];
  /** The same call as a clause of a refusal: `call the task tool with subagent_type "x"`. */
  delegationCall(agent: string | undefined): string;
  /** Why the commands of a session starting now can read Baton's key; undefined while its sandbox keeps it out. */
  keyReach(root: string): string | undefined;
  /** How its settings, as they are now, are weaker than `baton init` left them (the init manifest, as read). */
  weakenedSettings(root: string, manifest: Record<string, unknown>): string[];
}
