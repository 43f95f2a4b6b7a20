import * as z from "zod/mini";

/**
 * The hook stdin JSON that Baton's decisions read (contract section 4.2). Objects are loose: Claude
 * Code adds fields between versions, and a hook must never fail a session over a field it ignores.
 * The hot path checks these shapes by hand (input.ts); zod runs only to explain a rejected input.
 */
export const ToolHookInput = z.looseObject({
  session_id: z.string().check(z.minLength(1)),
  cwd: z.string().check(z.minLength(1)),
  hook_event_name: z.optional(z.string()),
  tool_name: z.string().check(z.minLength(1)),
  tool_input: z.record(z.string(), z.unknown()),
  /** PostToolUse only: the structured result, e.g. `{stdout, stderr, …}` for Bash. */
  tool_response: z.optional(z.unknown()),
  /** Present only for calls made inside a sub-agent (contract 4.4). */
  agent_id: z.optional(z.string()),
  agent_type: z.optional(z.string()),
  /** Set by Baton's opencode plugin on every event it forwards; Claude Code's own inputs have none. */
  baton_host: z.optional(z.string()),
});
export type ToolHookInput = z.infer<typeof ToolHookInput>;

export const StopHookInput = z.looseObject({
  session_id: z.string().check(z.minLength(1)),
  cwd: z.string().check(z.minLength(1)),
  hook_event_name: z.optional(z.string()),
  /** True on every Stop caused by a preceding block (contract 5.2). */
  stop_hook_active: z.optional(z.boolean()),
  agent_id: z.optional(z.string()),
  agent_type: z.optional(z.string()),
  background_tasks: z.optional(z.array(z.looseObject({ status: z.optional(z.string()) }))),
  /** Set by Baton's opencode plugin on every event it forwards; Claude Code's own inputs have none. */
  baton_host: z.optional(z.string()),
});
export type StopHookInput = z.infer<typeof StopHookInput>;
