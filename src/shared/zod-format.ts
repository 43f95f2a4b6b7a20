import type { core, ZodMiniType } from "zod/mini";

type Issue = core.$ZodIssue;

function pathText(path: ReadonlyArray<PropertyKey>): string {
  let out = "";
  for (const part of path) {
    out += typeof part === "number" ? `[${part}]` : out === "" ? String(part) : `.${String(part)}`;
  }
  return out || "(top level)";
}

/** zod/mini ships no message locale; these messages name the field and what is expected instead. */
export function describeIssue(issue: Issue): string {
  const where = pathText(issue.path);
  switch (issue.code) {
    case "unrecognized_keys":
      return `${where}: unknown key${issue.keys.length > 1 ? "s" : ""} ${issue.keys.map((k) => `"${k}"`).join(", ")}`;
    case "invalid_type":
      return `${where}: expected ${issue.expected}${issue.input === undefined ? " (missing)" : `, got ${describeValue(issue.input)}`}`;
    case "invalid_value":
      return `${where}: expected one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}, got ${describeValue(issue.input)}`;
    case "too_small":
      return `${where}: must be at least ${String(issue.minimum)}`;
    case "too_big":
      return `${where}: must be at most ${String(issue.maximum)}`;
    case "invalid_format":
      return `${where}: does not match ${issue.pattern ?? issue.format}`;
    default:
      return `${where}: ${issue.message || issue.code}`;
  }
}

function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "string") return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === "object") return "object";
  return `${typeof value} ${String(value)}`;
}

export function formatIssues(issues: ReadonlyArray<Issue>): string {
  return (
    issues.slice(0, 5).map(describeIssue).join("; ") +
    (issues.length > 5 ? ` (+${issues.length - 5} more)` : "")
  );
}

/**
 * Validates on zod's fast path; only a failure is re-run with `reportInput`, which makes messages
 * show the offending value but costs several times more (it matters for 10,000-task files).
 */
export function validationIssues(schema: ZodMiniType, value: unknown): ReadonlyArray<Issue> | null {
  if (schema.safeParse(value).success) return null;
  const detailed = schema.safeParse(value, { reportInput: true });
  return detailed.success ? null : detailed.error.issues;
}
