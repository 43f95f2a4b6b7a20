import { realpathSync } from "node:fs";
import { dirname, isAbsolute, relative, resolve, sep } from "node:path";
import { formatIssues, validationIssues } from "../shared/index.js";
import { present } from "../shared/present.js";
import type { AgentPlan, PlanStep } from "./agent-plan.js";
import { placeholderValues, substitute } from "./context.js";
import type { RunRequest } from "./runner-types.js";
import {
  ACTIONS,
  PHASE_KEY,
  PhaseShape,
  type Script,
  ScriptShape,
  type ScriptStep,
  STEP_SCHEMAS,
} from "./script-schema.js";
import { USAGE_MARKER } from "./step-marker.js";

export { PhaseScript, Script, ScriptStep } from "./script-schema.js";

/** A field path as the validation messages write it: `phases.2.iterations[1][0].sleepMs`. */
function fieldPath(path: ReadonlyArray<PropertyKey>): string {
  let out = "";
  for (const part of path) {
    out += typeof part === "number" ? `[${part}]` : out === "" ? String(part) : `.${String(part)}`;
  }
  return out || "(top level)";
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Validates a script. A union's own errors would list every alternative; instead each step is matched
 * to its action key and checked against that step's schema, so the message names the exact field,
 * wherever the step is (`steps[0].content`, `phases.2.iterations[1][0].sleepMs`).
 */
export function parseScript(
  value: unknown,
  source = "script",
): { ok: true; script: Script } | { ok: false; message: string } {
  const problems: string[] = [];
  if (
    isRecord(value) &&
    value.steps === undefined &&
    value.phases === undefined &&
    value.operations === undefined
  ) {
    problems.push('(top level): no "steps", "phases" or "operations"; a script needs at least one');
  }
  const shapeIssues = validationIssues(ScriptShape, value);
  if (shapeIssues) problems.push(formatIssues(shapeIssues));
  if (problems.length > 0) return { ok: false, message: `${source}: ${problems.join("; ")}` };

  const { steps, phases, operations } = value as {
    steps?: unknown[];
    phases?: Record<string, unknown>;
    operations?: Record<string, unknown[]>;
  };
  if (steps !== undefined) checkSteps(steps, ["steps"], problems);
  for (const [operation, list] of Object.entries(operations ?? {}))
    checkSteps(list, ["operations", operation], problems);
  if (phases !== undefined) {
    if (Object.keys(phases).length === 0 && steps === undefined && operations === undefined) {
      problems.push("phases: no entries and no top-level steps, so no run has anything to do");
    }
    for (const [id, entry] of Object.entries(phases)) checkPhase(id, entry, problems);
  }
  if (problems.length > 0) return { ok: false, message: `${source}: ${problems.join("; ")}` };
  return { ok: true, script: value as Script };
}

function checkPhase(id: string, entry: unknown, problems: string[]): void {
  const at = ["phases", id];
  const where = fieldPath(at);
  if (!PHASE_KEY.test(id)) {
    problems.push(
      `${where}: not a phase id; expected "*" or a phase number as the plan writes it (1, 2a, 6.5)`,
    );
  }
  const issues = validationIssues(PhaseShape, entry);
  if (issues) {
    problems.push(formatIssues(issues.map((issue) => ({ ...issue, path: [...at, ...issue.path] }))));
    return;
  }
  const { steps, iterations } = entry as { steps?: unknown[]; iterations?: unknown[][] };
  if (steps !== undefined && iterations !== undefined) {
    problems.push(`${where}: either "steps" (every iteration) or "iterations" (one list each), not both`);
  } else if (steps !== undefined) {
    checkSteps(steps, [...at, "steps"], problems);
  } else if (iterations === undefined) {
    problems.push(`${where}: no "steps" and no "iterations"`);
  } else if (iterations.length === 0) {
    problems.push(`${where}.iterations: empty; give at least one list of steps`);
  } else {
    for (const [k, list] of iterations.entries()) checkSteps(list, [...at, "iterations", k], problems);
  }
}

function checkSteps(steps: unknown[], at: PropertyKey[], problems: string[]): void {
  steps.forEach((step, i) => {
    const path = [...at, i];
    const where = fieldPath(path);
    if (!isRecord(step)) {
      problems.push(`${where}: expected an object with one of ${ACTIONS.join(", ")}`);
      return;
    }
    const actions = ACTIONS.filter((action) => Object.hasOwn(step, action));
    if (actions.length !== 1) {
      problems.push(
        actions.length === 0
          ? `${where}: no action; expected one of ${ACTIONS.join(", ")}`
          : `${where}: one action per step, found ${actions.join(" and ")}`,
      );
      return;
    }
    const issues = validationIssues(STEP_SCHEMAS[actions[0]!], step);
    if (issues)
      problems.push(formatIssues(issues.map((issue) => ({ ...issue, path: [...path, ...issue.path] }))));
  });
}

/**
 * The steps a script runs for one request, and their place in the script (for messages). Outside a phase
 * run: the top-level steps. In a phase run: `phases[id]`, else `phases["*"]`, else the top-level steps;
 * with `iterations`, the context's iteration (1-based, default 1) picks the list, the last one repeating.
 */
export function selectSteps(
  script: Script,
  request: RunRequest,
): { ok: true; steps: ScriptStep[]; at: PropertyKey[] } | { ok: false; message: string } {
  const { phase, iteration = 1, operation } = request.context;
  const byOperation = script.operations?.[operation];
  const topLevel = byOperation
    ? { ok: true as const, steps: byOperation, at: ["operations", operation] }
    : script.steps && { ok: true as const, steps: script.steps, at: ["steps"] };
  if (phase === undefined) {
    return (
      topLevel ?? {
        ok: false,
        message: 'the script has no top-level "steps" for a run outside a phase (it only has "phases")',
      }
    );
  }
  const phases = script.phases ?? {};
  const key = [phase.id, "*"].find((candidate) => Object.hasOwn(phases, candidate));
  if (key === undefined) {
    return (
      topLevel ?? {
        ok: false,
        message: `phase ${phase.id} (${JSON.stringify(phase.name)}): the script's "phases" has no "${phase.id}" or "*" entry, and there are no top-level "steps"`,
      }
    );
  }
  const entry = phases[key]!;
  if ("steps" in entry) return { ok: true, steps: entry.steps, at: ["phases", key, "steps"] };
  if (!Number.isInteger(iteration) || iteration < 1) {
    return { ok: false, message: `phase ${phase.id}: iteration ${iteration} is not a whole number from 1` };
  }
  const index = Math.min(iteration, entry.iterations.length) - 1;
  return { ok: true, steps: entry.iterations[index]!, at: ["phases", key, "iterations", index] };
}

/**
 * Turns a script into the child's plan for one request (the steps `selectSteps` picks); refuses a request
 * the script has no steps for, and a write outside the repository unless allowed.
 */
export function planScript(
  script: Script,
  request: RunRequest,
): { ok: true; plan: AgentPlan } | { ok: false; message: string } {
  const selected = selectSteps(script, request);
  if (!selected.ok) return selected;
  const values = placeholderValues(request);
  const root = resolve(request.cwd);
  const steps: PlanStep[] = [];
  for (const [i, step] of selected.steps.entries()) {
    if ("write" in step || "writeMetadata" in step) {
      const written = "write" in step ? substitute(step.write, values) : request.context.metadata_file_path;
      const path = resolve(root, written);
      if (!step.allowOutside && !isInside(root, path)) {
        const field = "write" in step ? "write" : "writeMetadata (metadata_file_path)";
        return {
          ok: false,
          message: `${fieldPath([...selected.at, i])}.${field}: ${written} is outside the repository ${root}; add "allowOutside": true if that is the point`,
        };
      }
      const content =
        "write" in step
          ? substitute(step.content, values)
          : `${JSON.stringify(substituteDeep(step.writeMetadata, values), null, 2)}\n`;
      steps.push({ op: "write", path, content, label: written });
    } else if ("output" in step) {
      steps.push({ op: "output", stream: step.stream ?? "stdout", text: substitute(step.output, values) });
    } else if ("progress" in step) {
      const label = substitute(step.progress, values);
      steps.push(
        step.tool === undefined ? { op: "progress", label } : { op: "progress", label, tool: step.tool },
      );
    } else if ("sleepMs" in step) steps.push({ op: "sleep", ms: step.sleepMs });
    else if ("exit" in step) steps.push({ op: "exit", code: step.exit });
    else if ("hang" in step) steps.push({ op: "hang", ignoreSigterm: step.ignoreSigterm ?? false });
    else if ("spend" in step)
      steps.push({ op: "output", stream: "stdout", text: `${USAGE_MARKER} ${JSON.stringify(step.spend)}` });
    else steps.push({ op: "crash" });
  }
  return { ok: true, plan: { steps } };
}

function substituteDeep(value: unknown, values: Parameters<typeof substitute>[1]): unknown {
  if (typeof value === "string") return substitute(value, values);
  if (Array.isArray(value)) return value.map((item) => substituteDeep(item, values));
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substituteDeep(v, values)]));
  }
  return value;
}

/** Lexically inside, and still inside once symlinks in the existing part of the path are resolved. */
function isInside(root: string, path: string): boolean {
  const within = (base: string, target: string) => {
    const rel = relative(base, target);
    return rel === "" || (rel.split(sep)[0] !== ".." && !isAbsolute(rel));
  };
  if (!within(root, path)) return false;
  let existing = path;
  while (!present(existing)) existing = dirname(existing);
  try {
    return within(realpathSync(root), realpathSync(existing));
  } catch {
    return false;
  }
}
