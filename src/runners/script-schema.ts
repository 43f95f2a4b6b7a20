import * as z from "zod/mini";
import { perOperation } from "../shared/per-operation.js";
import { OUTPUT_STREAMS, RunUsage } from "./runner-types.js";

/*
 * The scripted agent's script format. A script is what a scripted agent does, step by step, in a real child process. Placeholders
 * ({session_id}, {task_folder}, {metadata_file}, …) are replaced in paths, contents, output lines and in
 * every string of returned metadata, so a script can return the right session id, or a wrong one on purpose.
 */
export const relativePath = z.string().check(z.minLength(1));
export const WriteStep = z.strictObject({
  /** Relative to the repository root. */
  write: relativePath,
  content: z.string(),
  /** Fault tests write outside the repository on purpose; everything else is refused. */
  allowOutside: z.optional(z.boolean()),
});
export const WriteMetadataStep = z.strictObject({
  /** Written as JSON to the context's metadata_file_path. */
  writeMetadata: z.record(z.string(), z.unknown()),
  allowOutside: z.optional(z.boolean()),
});
export const OutputStep = z.strictObject({
  output: z.string(),
  stream: z.optional(z.enum(OUTPUT_STREAMS)),
});
export const ProgressStep = z.strictObject({
  progress: z.string().check(z.minLength(1)),
  tool: z.optional(z.string()),
});
export const SleepStep = z.strictObject({ sleepMs: z.number().check(z.int(), z.minimum(0)) });
export const ExitStep = z.strictObject({ exit: z.number().check(z.int(), z.minimum(0), z.maximum(255)) });
export const HangStep = z.strictObject({ hang: z.literal(true), ignoreSigterm: z.optional(z.boolean()) });
export const CrashStep = z.strictObject({ crash: z.literal(true) });
/** Reports what this step cost, as a model call would: streamed to Baton, which sums it and holds budgets. */
export const SpendStep = z.strictObject({ spend: RunUsage });

export const STEP_SCHEMAS = {
  write: WriteStep,
  writeMetadata: WriteMetadataStep,
  output: OutputStep,
  progress: ProgressStep,
  sleepMs: SleepStep,
  exit: ExitStep,
  hang: HangStep,
  crash: CrashStep,
  spend: SpendStep,
} as const;
export type Action = keyof typeof STEP_SCHEMAS;
export const ACTIONS = Object.keys(STEP_SCHEMAS) as Action[];

export const ScriptStep = z.union([
  WriteStep,
  WriteMetadataStep,
  OutputStep,
  ProgressStep,
  SleepStep,
  ExitStep,
  HangStep,
  CrashStep,
  SpendStep,
]);
export type ScriptStep = z.infer<typeof ScriptStep>;

export const Steps = z.array(ScriptStep);

/**
 * A phase id as the plan writes it (`1`, `2a`, `6.5`; the heading pattern of src/plan/parse.ts) or `*`
 * for any phase, so a typo such as "Phase 1" is an error rather than an entry that never matches.
 */
export const PHASE_KEY = /^(?:\*|\d+(?:\.\d+)?[a-z]?)$/;

/**
 * What a phase runs: the same `steps` at every iteration, or one list per iteration in `iterations`
 * (iteration k runs entry min(k, length), so the last one repeats: a phase that never finishes).
 */
export const PhaseScript = z.union([
  z.strictObject({ steps: Steps }),
  z.strictObject({ iterations: z.array(Steps).check(z.minLength(1)) }),
]);
export type PhaseScript = z.infer<typeof PhaseScript>;

export const Script = z.strictObject({
  description: z.optional(z.string()),
  /** Reported as the run's usage, so a demo can show tokens and cost. */
  usage: z.optional(RunUsage),
  /** For a run outside a phase, and for a phase that `phases` has no entry for. */
  steps: z.optional(Steps),
  /** By phase id, or "*" for any phase; chosen when the context names a phase. */
  phases: z.optional(z.record(z.string().check(z.regex(PHASE_KEY)), PhaseScript)),
  /** Steps by operation, for one script that runs a task's whole way (`baton run`); before `steps`. */
  operations: z.optional(perOperation(Steps)),
});
export type Script = z.infer<typeof Script>;

export const ScriptShape = z.strictObject({
  ...Script.def.shape,
  steps: z.optional(z.array(z.unknown())),
  phases: z.optional(z.record(z.string(), z.unknown())),
  operations: z.optional(
    z.strictObject({
      research: z.optional(z.array(z.unknown())),
      plan: z.optional(z.array(z.unknown())),
      implement: z.optional(z.array(z.unknown())),
      revise: z.optional(z.array(z.unknown())),
    }),
  ),
});
export const PhaseShape = z.strictObject({
  steps: z.optional(z.array(z.unknown())),
  iterations: z.optional(z.array(z.array(z.unknown()))),
});
