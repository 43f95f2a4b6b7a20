import { join } from "node:path";
import type { HookEntry, HookMode } from "../../init/index.js";
import { shellQuote } from "../../init/index.js";
import { packageRoot } from "../../shared/package.js";

export const CODEX_HOOKS_PATH = ".codex/hooks.json";

/**
 * Codex CLI runs Claude-Code-shaped command hooks (opencode contract 11.4): Baton's PreToolUse and
 * PostToolUse, for every tool, guard the task store in a Codex session as they do in Claude Code. Codex has
 * command hooks only, so the fast path is Baton's forwarder (a bash start, one local request to the
 * repository's hook server, which SessionStart starts); it decides in-process whenever the server cannot
 * answer, so no call goes undecided. `--hooks command` runs `baton hook` for every call instead.
 */
export function codexHookEntries(bin: string, mode: HookMode, port: number): HookEntry[] {
  const forwarder = shellQuote(join(packageRoot(), "bin", "baton-hook"));
  const handler = (name: string) =>
    mode === "command"
      ? `${bin} hook ${name}`
      : mode === "http"
        ? `${forwarder} ${name} ${port}`
        : `${forwarder} ${name}`;
  const perCall: HookEntry[] = [
    ["PreToolUse", "pre-tool-use"],
    ["PostToolUse", "post-tool-use"],
  ].map(([event, name]) => ({
    event: event!,
    group: { matcher: "*", hooks: [{ type: "command", command: handler(name!) }] },
  }));
  if (mode === "command") return perCall;
  const start = mode === "http" ? `${bin} hook session-start --port ${port}` : `${bin} hook session-start`;
  return [{ event: "SessionStart", group: { hooks: [{ type: "command", command: start }] } }, ...perCall];
}
