import type { HookEntry } from "../../init/index.js";

export const CODEX_HOOKS_PATH = ".codex/hooks.json";

/**
 * Codex CLI runs Claude-Code-shaped command hooks (opencode contract 11.4): Baton's PreToolUse and
 * PostToolUse, for every tool, guard the task store in a Codex session as they do in Claude Code.
 */
export function codexHookEntries(bin: string): HookEntry[] {
  return [
    ["PreToolUse", "pre-tool-use"],
    ["PostToolUse", "post-tool-use"],
  ].map(([event, name]) => ({
    event: event!,
    group: { matcher: "*", hooks: [{ type: "command", command: `${bin} hook ${name}` }] },
  }));
}
