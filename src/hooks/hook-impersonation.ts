import { batonKeyDir, SIGNING_KEY_FILE } from "../shared/baton-paths.js";

/**
 * A hook decision comes from the host, never from a tool call: a Bash command that feeds Baton's hook
 * (`baton hook <event>`, the resident forwarder, the hook server's URL) or reaches for Baton's key is
 * the model impersonating the host, and is denied. Best effort, like the write detection beside it:
 * the host's own sandbox (which `baton init` turns on) and the delegation log's seal are what hold
 * when a command hides the call.
 */
const EVENTS =
  "pre-tool-use|post-tool-use-failure|post-tool-use|stop|subagent-start|subagent-stop|session-start";
const HOOK_CALL = new RegExp(
  `(?:^|[\\s;&|(\`$/'"])(?:baton(?:\\.js)?['"]?\\s+hook|baton-hook['"]?)\\s+['"]?(?:${EVENTS})\\b|\\/hooks\\/(?:${EVENTS})\\b`,
);

function mentionsKey(command: string): boolean {
  return (
    command.includes(SIGNING_KEY_FILE) || command.includes("baton/keys") || command.includes(batonKeyDir())
  );
}

/** Why this command impersonates the host, or null. */
export function hostImpersonation(command: string): string | null {
  if (HOOK_CALL.test(command)) {
    return "Baton's hooks take their input from the host (Claude Code, opencode), not from a tool call: a hook event fed to Baton by a command is refused. Work through the tools; the host reports them to Baton itself.";
  }
  if (mentionsKey(command)) {
    return "Baton's signing key is not for agents: it seals Baton's records and signs its evidence, so no tool call may read, copy or change it.";
  }
  return null;
}
