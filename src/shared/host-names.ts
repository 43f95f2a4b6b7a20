/**
 * The agent CLIs a live session can run in, by the name `baton init --host` and `gate-in --host` give them: the
 * one list, primary first. The hosts' registry is keyed by these names (a name without a host does not compile),
 * and lint names the host that reads a file by them.
 */
export const HOST_NAMES = ["claude", "opencode", "codex"] as const;
export type HostName = (typeof HOST_NAMES)[number];
