import type { TaskEntry } from "./store-schema.js";

/**
 * A hand-written mirror of the `TaskEntry` schema. zod costs ~5 µs per entry, which is most of a
 * `task list` on a 10,000-task file; this check costs a few hundred nanoseconds. It decides only
 * "valid or not": on a miss the zod schema runs to say why, and a differential test keeps the two equal.
 */
const isString = (v: unknown): v is string => typeof v === "string";
const isOptionalString = (v: unknown) => v === undefined || typeof v === "string";
const isNumber = (v: unknown): v is number => typeof v === "number" && !Number.isNaN(v);

function isArtifact(v: unknown): boolean {
  if (typeof v === "string") return true;
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  const a = v as Record<string, unknown>;
  return isString(a["path"]) && isOptionalString(a["type"]) && isOptionalString(a["summary"]);
}

function isOptionalArray(v: unknown, item: (x: unknown) => boolean): boolean {
  if (v === undefined) return true;
  if (!Array.isArray(v)) return false;
  for (const x of v) if (!item(x)) return false;
  return true;
}

export function isTaskEntry(value: unknown): value is TaskEntry {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const t = value as Record<string, unknown>;
  const n = t["project_number"];
  if (!isNumber(n) || !Number.isSafeInteger(n) || n < 0) return false;
  if (!isString(t["project_name"])) return false;
  const status = t["status"];
  if (!isString(status) || status.length === 0) return false;
  if (
    !isOptionalString(t["language"]) ||
    !isOptionalString(t["description"]) ||
    !isOptionalString(t["priority"]) ||
    !isOptionalString(t["created"]) ||
    !isOptionalString(t["last_updated"]) ||
    !isOptionalString(t["session_id"])
  ) {
    return false;
  }
  const effort = t["effort"];
  if (effort !== undefined && !isString(effort) && !isNumber(effort)) return false;
  const parent = t["parent_task"];
  if (parent !== undefined && parent !== null && !isNumber(parent)) return false;
  return (
    isOptionalArray(t["dependencies"], (x) => isNumber(x) || isString(x)) &&
    isOptionalArray(t["subtasks"], isNumber) &&
    isOptionalArray(t["artifacts"], isArtifact)
  );
}
