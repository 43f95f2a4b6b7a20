import { join } from "node:path";
import type { HookEntry, HookMode } from "../../init/index.js";
import { shellQuote } from "../../init/index.js";
import {
  DEFAULT_HOOK_PORT,
  HOOK_SECRET_ENV,
  HOOK_SECRET_HEADER,
  STOP_GATE_OUT_TIMEOUT_S,
} from "../../shared/hook-port.js";
import { packageRoot } from "../../shared/package.js";

// PreToolUse looks only at tools that write or delegate; PostToolUse and PostToolUseFailure see every tool,
// because provenance records whatever changed an open task folder, whichever tool it was.
const TOOL_MATCHERS: Record<string, string | undefined> = {
  PreToolUse: "Write|Edit|MultiEdit|NotebookEdit|Bash|Agent|Task",
};

export const SETTINGS_PATH = ".claude/settings.json";

/** Claude Code event → the `baton hook` subcommand and `baton serve` path that handle it. */
export const HOOK_EVENTS = [
  ["PreToolUse", "pre-tool-use"],
  ["PostToolUse", "post-tool-use"],
  ["PostToolUseFailure", "post-tool-use-failure"],
  ["Stop", "stop"],
  ["SubagentStart", "subagent-start"],
  ["SubagentStop", "subagent-stop"],
] as const;

type Json = Record<string, unknown>;

/**
 * The per-tool-call events: with `--hooks http` they go to the resident server, and Claude Code blocks the
 * tool call when the server cannot answer (`onFailure: "block"`).
 */
const PER_TOOL_CALL = new Set(["PreToolUse", "PostToolUse", "PostToolUseFailure", "SubagentStart"]);

function handlerFor(bin: string, mode: HookMode, port: number, event: string, name: string): Json {
  // Claude Code ignores onFailure on Stop and SubagentStop, so an HTTP hook there would let an agent stop
  // while the server is down; they run once per agent, so they stay in-process command hooks.
  if (mode === "http" && PER_TOOL_CALL.has(event)) {
    // The installation's secret, from the local settings' env (hook-secret-settings.ts): no web page has it.
    return {
      type: "http",
      url: `http://127.0.0.1:${port}/hooks/${name}`,
      headers: { [HOOK_SECRET_HEADER]: `$${HOOK_SECRET_ENV}` },
      allowedEnvVars: [HOOK_SECRET_ENV],
      onFailure: "block",
    };
  }
  if (mode === "resident") {
    return { type: "command", command: `${shellQuote(join(packageRoot(), "bin", "baton-hook"))} ${name}` };
  }
  return { type: "command", command: `${bin} hook ${name}` };
}

export function hookEntries(bin: string, mode: HookMode, port: number): HookEntry[] {
  const entries: HookEntry[] = HOOK_EVENTS.map(([event, name]) => {
    // Stop may run GATE OUT itself (an implement's checks included), so it gets the time that takes.
    const handler = {
      ...handlerFor(bin, mode, port, event, name),
      ...(event === "Stop" ? { timeout: STOP_GATE_OUT_TIMEOUT_S + 10 } : {}),
    };
    // Stop, SubagentStart and SubagentStop take no matcher (theirs would be the agent type).
    const matcher = TOOL_MATCHERS[event];
    const group = matcher ? { matcher, hooks: [handler] } : { hooks: [handler] };
    return { event, group };
  });
  // SessionStart starts the resident `baton serve` the hooks call: on the configured port for http, on a
  // free port published in .baton/serve.port for the resident forwarders.
  if (mode !== "command") {
    const command =
      mode === "http" ? `${bin} hook session-start --port ${port}` : `${bin} hook session-start`;
    entries.unshift({ event: "SessionStart", group: { hooks: [{ type: "command", command }] } });
    // SessionEnd: the session is over, and the server started for it ends with the last one.
    entries.push({
      event: "SessionEnd",
      group: { hooks: [{ type: "command", command: `${bin} hook session-end` }] },
    });
  }
  return entries;
}

export { DEFAULT_HOOK_PORT };
