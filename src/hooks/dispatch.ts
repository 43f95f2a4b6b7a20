import { appendEvent } from "../shared/event-stream.js";
import { allow, type Decision } from "./decision.js";
import type { StopHookInput, ToolHookInput } from "./hook-input-schema.js";
import { explainInput, isStopHookInput, isToolHookInput } from "./input.js";
import { appendHookLog, type HookLogEntry } from "./log.js";
import { postToolUse, postToolUseFailure } from "./post-tool-use.js";
import { preToolUse } from "./pre-tool-use.js";
import { batonRepositoryOf, isInside, type Project, resolveProject } from "./project.js";
import { sessionEnd, sessionStart } from "./resident.js";
import { stop } from "./stop.js";
import { subagentStart, subagentStop } from "./subagent-stop.js";

/** Baton's event names (CLI argument, URL path) and Claude Code's (`hook_event_name`, settings keys). */
export const HOOK_EVENTS = {
  "pre-tool-use": "PreToolUse",
  "post-tool-use": "PostToolUse",
  "post-tool-use-failure": "PostToolUseFailure",
  "session-start": "SessionStart",
  "session-end": "SessionEnd",
  stop: "Stop",
  "subagent-start": "SubagentStart",
  "subagent-stop": "SubagentStop",
} as const;
export type HookEvent = keyof typeof HOOK_EVENTS;

type Handler =
  | { kind: "tool"; run: (input: ToolHookInput, project: Project) => Decision | Promise<Decision> }
  | {
      kind: "stop";
      run: (input: StopHookInput, project: Project, env: HookEnvironment) => Decision | Promise<Decision>;
    };

const HANDLERS: Record<HookEvent, Handler> = {
  "pre-tool-use": { kind: "tool", run: preToolUse },
  "post-tool-use": { kind: "tool", run: postToolUse },
  "post-tool-use-failure": { kind: "tool", run: postToolUseFailure },
  "session-start": { kind: "stop", run: sessionStart },
  "session-end": { kind: "stop", run: sessionEnd },
  stop: { kind: "stop", run: stop },
  "subagent-start": { kind: "stop", run: subagentStart },
  "subagent-stop": { kind: "stop", run: subagentStop },
};

/** `pre-tool-use` or `PreToolUse`, so that URLs and commands may use either spelling. */
export function hookEvent(name: string): HookEvent | undefined {
  if (name in HOOK_EVENTS) return name as HookEvent;
  return (Object.keys(HOOK_EVENTS) as HookEvent[]).find((e) => HOOK_EVENTS[e] === name);
}

export interface HookEnvironment {
  /** CLAUDE_PROJECT_DIR of a command hook; HTTP hooks have none. */
  projectDir?: string | undefined;
  /** Where to log when the input names no folder. */
  fallbackDir: string;
  /** `baton hook session-start --port N`: the port the http hooks call, where SessionStart keeps a server. */
  servePort?: number | undefined;
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** What one hook call saw and decided, for the hook log and the event stream. */
type CallRecord = { entry: Partial<HookLogEntry>; root: string; decision: Decision };

/** The input parsed and checked against its event's shape, then the handler's decision. */
async function decide(
  event: HookEvent | undefined,
  eventName: string,
  body: string,
  env: HookEnvironment,
  call: CallRecord,
): Promise<void> {
  const { entry } = call;
  let value: unknown;
  if (!event) {
    entry.problem = `unknown hook event "${eventName}" (expected ${Object.keys(HOOK_EVENTS).join(", ")})`;
  } else {
    try {
      value = JSON.parse(body);
    } catch (error) {
      entry.problem = `hook input is not JSON: ${messageOf(error)}`;
    }
  }
  // Where the call is logged: the project Claude Code names, else a Baton repository the input's `cwd` is
  // in; never a folder the input merely names (the server's own folder then).
  const cwd = (value as { cwd?: unknown } | null)?.cwd;
  const claimed = !env.projectDir && typeof cwd === "string" && cwd !== "" ? batonRepositoryOf(cwd) : null;
  if (claimed) call.root = claimed;
  if (!event || value === undefined) return;
  const handler = HANDLERS[event];
  const valid = handler.kind === "tool" ? isToolHookInput(value) : isStopHookInput(value);
  if (!valid) {
    entry.problem = `hook input does not match ${HOOK_EVENTS[event]}: ${await explainInput(handler.kind, value)}`;
    return;
  }
  const input = value as ToolHookInput & StopHookInput;
  entry.tool = input.tool_name;
  entry.claude_session = input.session_id;
  entry.agent_type = input.agent_type;
  entry.agent_id = input.agent_id;
  if (input.hook_event_name !== undefined && input.hook_event_name !== HOOK_EVENTS[event]) {
    entry.problem = `a ${input.hook_event_name} input was sent to the ${event} hook (check the hook settings)`;
    return;
  }
  if (!env.projectDir && !claimed) {
    entry.problem = `the input's cwd (${JSON.stringify(input.cwd)}) is in no Baton repository: nothing checked, nothing written there`;
    return;
  }
  const project = resolveProject(input.cwd, env.projectDir);
  call.root = project.root;
  if (!isInside(project.root, input.cwd)) {
    // A relative path would be read against a folder outside the project: read it against the project.
    entry.problem = `the input's cwd (${JSON.stringify(input.cwd)}) is outside the project ${project.root}; read as the project's root`;
    input.cwd = project.root;
  }
  call.decision =
    handler.kind === "tool" ? await handler.run(input, project) : await handler.run(input, project, env);
}

/** One line in the hook log for every call; the event stream gets the decisions worth seeing. */
function recordCall(call: CallRecord, eventName: string, started: bigint): void {
  const { entry, root, decision } = call;
  try {
    appendHookLog(root, {
      ts: new Date().toISOString(),
      ...entry,
      event: entry.event ?? eventName,
      decision: decision.decision,
      ...(decision.reason ? { reason: decision.reason } : {}),
      ...(decision.note ? { note: decision.note } : {}),
      ...(decision.task === undefined ? {} : { task: decision.task }),
      ms: Number((process.hrtime.bigint() - started) / 10_000n) / 100,
    });
  } catch (error) {
    process.stderr.write(`baton hook: cannot write the hook log under ${root}: ${messageOf(error)}\n`);
  }
  // A plain allow is only in the hook log.
  if (decision.decision === "allow" && !decision.note && !entry.problem) return;
  const message = decision.reason ?? decision.note ?? entry.problem;
  appendEvent(root, {
    kind: "hook",
    outcome: decision.decision,
    code: entry.event ?? eventName,
    ...(entry.tool ? { tool: entry.tool } : {}),
    ...(entry.claude_session ? { hostSession: entry.claude_session } : {}),
    ...(entry.agent_type ? { agent: entry.agent_type } : {}),
    ...(decision.task === undefined ? {} : { task: decision.task }),
    ...(message ? { message: message.slice(0, 300) } : {}),
  });
}

/**
 * One hook call, from raw stdin text to the JSON reply. Nothing it meets may break the Claude Code
 * session: malformed input, an unknown event and internal errors all answer `{}` (no opinion) and
 * are logged; the only output is the reply.
 */
export async function handleHook(
  eventName: string,
  body: string,
  env: HookEnvironment,
): Promise<Record<string, unknown>> {
  const started = process.hrtime.bigint();
  const event = hookEvent(eventName);
  const call: CallRecord = {
    entry: { event: event ?? eventName },
    root: env.projectDir || env.fallbackDir,
    decision: allow(),
  };
  try {
    await decide(event, eventName, body, env, call);
  } catch (error) {
    call.decision = allow();
    call.entry.problem = `internal error: ${messageOf(error)}`;
  }
  recordCall(call, eventName, started);
  return call.decision.reply;
}
