import { HOST_NAMES, type HostName } from "../shared/host-names.js";
import { claudeSession } from "./claude-code/claude-session.js";
import type { HostSession } from "./host-session.js";
import { opencodeSession } from "./opencode/opencode-session.js";

/**
 * Each host's session, by name; null: no in-session gates (Codex has no sub-agent tool). Apart from the hosts'
 * registry because the hooks read it on every tool call: this file loads no installer, lint rule or agent reader.
 */
export const HOST_SESSIONS: Readonly<Record<HostName, HostSession | null>> = {
  claude: claudeSession,
  opencode: opencodeSession,
  codex: null,
};

/**
 * The session a hook's input comes from: the host Baton's opencode plugin marks it with (`baton_host`); Claude
 * Code and Codex send no mark, and get the primary host's words.
 */
export function hookSession(mark: unknown): HostSession {
  const named =
    typeof mark === "string" && Object.hasOwn(HOST_SESSIONS, mark) ? HOST_SESSIONS[mark as HostName] : null;
  return named ?? (HOST_SESSIONS[HOST_NAMES[0]] as HostSession);
}

/** How every installed host's settings are weaker now than `baton init` left them; empty when Baton is not installed. */
export function weakenedHostSettings(root: string, manifest: Record<string, unknown>): string[] {
  const sessions = Object.values(HOST_SESSIONS).filter((s): s is HostSession => s !== null);
  return [...new Set(sessions.flatMap((s) => s.weakenedSettings(root, manifest)))];
}
