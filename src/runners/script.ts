import { existsSync, realpathSync } from "node:fs";
import { dirname, isAbsolute, relative, resolve, sep } from "node:path";
import * as z from "zod/mini";
import { formatIssues, validationIssues } from "../shared/index.js";
import { placeholderValues, substitute } from "./context.js";
import { type RunRequest, RunUsage } from "./types.js";

/*
 * A script is what a scripted agent does, step by step, in a real child process. Placeholders
 * ({session_id}, {task_folder}, {metadata_file}, …) are replaced in paths, contents, output lines and in
 * every string of returned metadata, so a script can return the right session id, or a wrong one on purpose.
 */
const relativePath = z.string().check(z.minLength(1));
const WriteStep = z.strictObject({
  /** Relative to the repository root. */
  write: relativePath,
  content: z.string(),
  /** Fault tests write outside the repository on purpose; everything else is refused. */
  allowOutside: z.optional(z.boolean()),
});
const WriteMetadataStep = z.strictObject({
  /** Written as JSON to the context's metadata_file_path. */
  writeMetadata: z.record(z.string(), z.unknown()),
  allowOutside: z.optional(z.boolean()),
});
const OutputStep = z.strictObject({ output: z.string(), stream: z.optional(z.enum(["stdout", "stderr"])) });
const ProgressStep = z.strictObject({
  progress: z.string().check(z.minLength(1)),
  tool: z.optional(z.string()),
});
const SleepStep = z.strictObject({ sleepMs: z.number().check(z.int(), z.minimum(0)) });
const ExitStep = z.strictObject({ exit: z.number().check(z.int(), z.minimum(0), z.maximum(255)) });
const HangStep = z.strictObject({ hang: z.literal(true), ignoreSigterm: z.optional(z.boolean()) });
const CrashStep = z.strictObject({ crash: z.literal(true) });

const STEP_SCHEMAS = {
  write: WriteStep,
  writeMetadata: WriteMetadataStep,
  output: OutputStep,
  progress: ProgressStep,
  sleepMs: SleepStep,
  exit: ExitStep,
  hang: HangStep,
  crash: CrashStep,
} as const;
type Action = keyof typeof STEP_SCHEMAS;
const ACTIONS = Object.keys(STEP_SCHEMAS) as Action[];

export const ScriptStep = z.union([
  WriteStep,
  WriteMetadataStep,
  OutputStep,
  ProgressStep,
  SleepStep,
  ExitStep,
  HangStep,
  CrashStep,
]);
export type ScriptStep = z.infer<typeof ScriptStep>;

export const Script = z.strictObject({
  description: z.optional(z.string()),
  /** Reported as the run's usage, so a demo can show tokens and cost. */
  usage: z.optional(RunUsage),
  steps: z.array(ScriptStep),
});
export type Script = z.infer<typeof Script>;

const ScriptShape = z.strictObject({ ...Script.def.shape, steps: z.array(z.unknown()) });

/**
 * Validates a script. A union's own errors would list every alternative; instead each step is matched
 * to its action key and checked against that step's schema, so the message names the exact field.
 */
export function parseScript(
  value: unknown,
  source = "script",
): { ok: true; script: Script } | { ok: false; message: string } {
  const shapeIssues = validationIssues(ScriptShape, value);
  if (shapeIssues) return { ok: false, message: `${source}: ${formatIssues(shapeIssues)}` };
  const steps = (value as { steps: unknown[] }).steps;
  const problems: string[] = [];
  steps.forEach((step, i) => {
    const where = `steps[${i}]`;
    if (typeof step !== "object" || step === null || Array.isArray(step)) {
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
      problems.push(formatIssues(issues.map((issue) => ({ ...issue, path: ["steps", i, ...issue.path] }))));
  });
  if (problems.length > 0) return { ok: false, message: `${source}: ${problems.join("; ")}` };
  return { ok: true, script: value as Script };
}

/** What the child process executes: placeholders replaced, paths absolute and checked. */
const PlanStep = z.union([
  z.strictObject({ op: z.literal("write"), path: z.string(), content: z.string(), label: z.string() }),
  z.strictObject({ op: z.literal("output"), stream: z.enum(["stdout", "stderr"]), text: z.string() }),
  z.strictObject({ op: z.literal("progress"), label: z.string(), tool: z.optional(z.string()) }),
  z.strictObject({ op: z.literal("sleep"), ms: z.number() }),
  z.strictObject({ op: z.literal("exit"), code: z.number() }),
  z.strictObject({ op: z.literal("hang"), ignoreSigterm: z.boolean() }),
  z.strictObject({ op: z.literal("crash") }),
]);
export const AgentPlan = z.strictObject({ steps: z.array(PlanStep) });
export type AgentPlan = z.infer<typeof AgentPlan>;
type PlanStep = z.infer<typeof PlanStep>;

/** Turns a script into the child's plan for one request; refuses a write outside the repository unless allowed. */
export function planScript(
  script: Script,
  request: RunRequest,
): { ok: true; plan: AgentPlan } | { ok: false; message: string } {
  const values = placeholderValues(request);
  const root = resolve(request.cwd);
  const steps: PlanStep[] = [];
  for (const [i, step] of script.steps.entries()) {
    if ("write" in step || "writeMetadata" in step) {
      const written = "write" in step ? substitute(step.write, values) : request.context.metadata_file_path;
      const path = resolve(root, written);
      if (!step.allowOutside && !isInside(root, path)) {
        const field = "write" in step ? "write" : "writeMetadata (metadata_file_path)";
        return {
          ok: false,
          message: `steps[${i}].${field}: ${written} is outside the repository ${root}; add "allowOutside": true if that is the point`,
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
  while (!existsSync(existing)) existing = dirname(existing);
  try {
    return within(realpathSync(root), realpathSync(existing));
  } catch {
    return false;
  }
}
