import { isDeepStrictEqual } from "node:util";
import { parse as parseToml, stringify as stringifyToml } from "smol-toml";
import { PACKAGE_CHECK_KEYS } from "./check-inputs.js";

/**
 * Files that hold the project's dependencies and its runners' settings in one: package.json and
 * pyproject.toml. In the verdict tree each is the agent's for what its code needs (dependencies,
 * metadata, module settings) and the baseline's for what tells a runner what and how to run.
 */

/** package.json as the agent left it, with the baseline's runner keys (scripts, jest, mocha, …). */
export function mergedPackage(baseline: string | null, agent: string | null): string | null {
  if (agent === null) return baseline;
  // A file no parser reads (or one nested past the stack) keeps the baseline's whole.
  try {
    const theirs = JSON.parse(agent) as Record<string, unknown>;
    const ours = (baseline === null ? {} : JSON.parse(baseline)) as Record<string, unknown>;
    const merged = { ...theirs };
    for (const key of PACKAGE_CHECK_KEYS) {
      if (key in ours) merged[key] = ours[key];
      else delete merged[key];
    }
    return `${JSON.stringify(merged, null, 2)}\n`;
  } catch {
    return baseline;
  }
}

const table = (value: unknown): Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};

/** Where in pyproject.toml no test runner looks: the project's dependencies and metadata, and Poetry's. */
const DEPENDENCY_KEYS: ReadonlyArray<readonly string[]> = [
  ["project", "dependencies"],
  ["project", "optional-dependencies"],
  ["project", "version"],
  ["project", "description"],
  ["build-system", "requires"],
  ["dependency-groups"],
  ["tool", "poetry", "dependencies"],
  ["tool", "poetry", "dev-dependencies"],
  ["tool", "poetry", "group"],
];

function lookUp(value: Record<string, unknown>, path: readonly string[]): unknown {
  let at: unknown = value;
  for (const key of path) at = table(at)[key];
  return at;
}

function setAt(value: Record<string, unknown>, path: readonly string[], to: unknown): void {
  let at = value;
  for (const key of path.slice(0, -1)) {
    const next = table(at[key]);
    at[key] = next;
    at = next;
  }
  const last = path.at(-1)!;
  if (to === undefined) delete at[last];
  else at[last] = to;
}

const plain = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

/** pyproject.toml as the baseline had it, with the agent's dependencies and metadata. */
export function mergedPyproject(baseline: string | null, agent: string | null): string | null {
  if (agent === null || baseline === null) return baseline;
  try {
    const ours = parseToml(baseline) as Record<string, unknown>;
    const theirs = parseToml(agent) as Record<string, unknown>;
    const merged = structuredClone(ours);
    for (const path of DEPENDENCY_KEYS)
      if (lookUp(ours, path) !== undefined || lookUp(theirs, path) !== undefined)
        setAt(merged, path, lookUp(theirs, path));
    // Unchanged where runners look: the agent's own text, comments and layout kept.
    // (As plain data: the parser's tables and a clone's differ in prototype only.)
    if (isDeepStrictEqual(plain(merged), plain(theirs))) return agent;
    return stringifyToml(merged);
  } catch {
    return baseline;
  }
}
