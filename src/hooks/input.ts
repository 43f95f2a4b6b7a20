import type { StopHookInput, ToolHookInput } from "./hook-input-schema.js";

/**
 * Hand-written mirrors of the schemas in schema.ts. Loading zod costs a few milliseconds of module
 * evaluation on every tool call; these checks cost microseconds. They only decide "valid or not": a
 * rejected input is explained by zod, loaded on demand, and a differential test keeps both equal.
 */
type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const isNonEmptyString = (v: unknown): v is string => typeof v === "string" && v.length > 0;
const isOptionalString = (v: unknown) => v === undefined || typeof v === "string";

function hasCommonFields(v: Json): boolean {
  return (
    isNonEmptyString(v["session_id"]) &&
    isNonEmptyString(v["cwd"]) &&
    isOptionalString(v["hook_event_name"]) &&
    isOptionalString(v["agent_id"]) &&
    isOptionalString(v["agent_type"])
  );
}

export function isToolHookInput(value: unknown): value is ToolHookInput {
  return (
    isObject(value) &&
    hasCommonFields(value) &&
    isNonEmptyString(value["tool_name"]) &&
    isObject(value["tool_input"])
  );
}

export function isStopHookInput(value: unknown): value is StopHookInput {
  if (!isObject(value) || !hasCommonFields(value)) return false;
  const active = value["stop_hook_active"];
  if (active !== undefined && typeof active !== "boolean") return false;
  const tasks = value["background_tasks"];
  if (tasks === undefined) return true;
  if (!Array.isArray(tasks)) return false;
  return tasks.every((t) => isObject(t) && isOptionalString(t["status"]));
}

/** Why an input was rejected, in the words of the zod schema (loaded only on this path). */
export async function explainInput(kind: "tool" | "stop", value: unknown): Promise<string> {
  const [{ StopHookInput, ToolHookInput }, { formatIssues }] = await Promise.all([
    import("./hook-input-schema.js"),
    import("../shared/zod-format.js"),
  ]);
  const result = (kind === "tool" ? ToolHookInput : StopHookInput).safeParse(value);
  return result.success ? "rejected by the fast check only" : formatIssues(result.error.issues);
}
