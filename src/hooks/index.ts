export { runHookCommand } from "./command.js";
export type { Decision, DecisionKind } from "./decision.js";
export { HOOK_EVENTS, type HookEnvironment, type HookEvent, handleHook, hookEvent } from "./dispatch.js";
export { type HookLogEntry, hookLogPath } from "./log.js";
export { type Project, resolveProject } from "./project.js";
export { StopHookInput, ToolHookInput } from "./schema.js";
export { DEFAULT_HOOK_PORT, type HookServer, hookUrl, startHookServer } from "./server.js";
export { STOP_BLOCK_LIMIT, stopCounterPath } from "./stop.js";
export { LOOP_GUARD_LIMIT } from "./subagent-stop.js";
