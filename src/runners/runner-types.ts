import * as z from "zod/mini";
import { OPERATIONS } from "../shared/operation-names.js";
import type { RunnerType } from "../shared/runner-names.js";
import type { SandboxPolicy } from "./sandbox.js";

/** The plan phase a delegation implements, when `baton implement` runs a plan phase by phase. */
export const PhaseContext = z.object({
  /** As written in the plan heading: `1`, `2a`, `6.5`. */
  id: z.string().check(z.minLength(1)),
  name: z.string(),
  /** Ids of the phases this one depends on. */
  dependencies: z.array(z.string()),
  /** Where the agent must write the phase summary, relative to the repository root. */
  summary_path: z.string().check(z.minLength(1)),
});
export type PhaseContext = z.infer<typeof PhaseContext>;

/**
 * What Baton hands an agent for one delegation: the format reference's "delegation context" (snake_case,
 * as agents written for the original system read it), plus the operation and task folder. Paths are
 * relative to the repository root, which is the agent's working directory.
 */
export const DelegationContext = z.object({
  session_id: z.string().check(z.minLength(1)),
  delegation_depth: z.number().check(z.int(), z.minimum(0)),
  delegation_path: z.array(z.string()),
  operation: z.enum(OPERATIONS),
  /** Seconds, informative: the runner's `timeoutMs` is what is enforced. */
  timeout: z.optional(z.number()),
  task_context: z.object({
    task_number: z.number().check(z.int(), z.minimum(0)),
    task_name: z.string(),
    description: z.string(),
    language: z.string(),
  }),
  focus_prompt: z.optional(z.string()),
  task_folder: z.string().check(z.minLength(1)),
  metadata_file_path: z.string().check(z.minLength(1)),
  /** Where this delegation's artifact goes (the report, the plan, the summary; a phase's summary). */
  artifact_path: z.optional(z.string()),
  research_path: z.optional(z.string()),
  plan_path: z.optional(z.string()),
  /** 1-based for phases: a phase that reports work remaining runs again with the next iteration. */
  iteration: z.optional(z.number()),
  resume_phase: z.optional(z.number()),
  handoff_path: z.optional(z.string()),
  /** Present when the delegation runs one phase of a plan. */
  phase: z.optional(PhaseContext),
  /** What the previous iteration of this phase reported as remaining work. */
  continuation_context: z.optional(z.string()),
});
export type DelegationContext = z.infer<typeof DelegationContext>;

/** The agent chosen by routing; runners that cannot use a field (a plain command) pass it on in BATON_AGENT. */
export const AgentDefinition = z.object({
  name: z.string().check(z.minLength(1)),
  /** What the agent is for; Claude Code requires one for an agent passed with `--agents`. */
  description: z.optional(z.string()),
  systemPrompt: z.optional(z.string()),
  tools: z.optional(z.array(z.string())),
  model: z.optional(z.string()),
});
export type AgentDefinition = z.infer<typeof AgentDefinition>;

export interface RunRequest {
  context: DelegationContext;
  prompt: string;
  /** The repository root; the agent runs here and relative paths in `context` resolve against it. */
  cwd: string;
  agent?: AgentDefinition;
}

/** `queue`: the agent runs on a `baton worker` (src/batch/queue). */
export type RunnerKind = RunnerType | "queue";

/** A runner as a dry run shows it: its kind and what exactly it would start. */
export interface RunnerDescription {
  kind: RunnerKind;
  detail: string;
}

/** Every field is optional: a runner reports what its agent tells it (a plain command tells nothing). */
export const RunUsage = z.object({
  inputTokens: z.optional(z.number().check(z.minimum(0))),
  outputTokens: z.optional(z.number().check(z.minimum(0))),
  costUsd: z.optional(z.number().check(z.minimum(0))),
  turns: z.optional(z.number().check(z.int(), z.minimum(0))),
  /** As the agent measured it (e.g. Claude's `duration_ms`); the outcome's `durationMs` is Baton's wall clock. */
  durationMs: z.optional(z.number().check(z.minimum(0))),
});
export type RunUsage = z.infer<typeof RunUsage>;

/**
 * - exit: the agent exited with a non-zero code.
 * - crashed: it died of a signal nobody in Baton sent (SIGKILL from the OOM killer, SIGSEGV, …).
 * - timeout / aborted: Baton stopped it (the whole process group) after `timeoutMs` / on the AbortSignal.
 * - spawn_failed: it never started (missing binary or working directory).
 * - invalid_request: refused before starting (a script that does not validate or writes outside the repository).
 * - agent_error: the agent ran but reported that its run failed (Claude's final `result` with `is_error`: an API
 *   error, the turn limit, …), whatever its exit code. Not `exit`: Claude Code also exits 1 when it could not start
 *   (an unknown `--agent`), and telling "the model API failed" from "the command is wrong" decides whether a
 *   retry can help.
 */
export type RunFailureReason =
  | "exit"
  | "crashed"
  | "timeout"
  | "aborted"
  | "spawn_failed"
  | "invalid_request"
  | "agent_error";

interface RunRecord {
  /** The agent's output text, where Baton later looks for `TASK_ERROR:` / `ERROR_CONTEXT:` (last 64 KB). */
  output: string;
  /** Diagnostics for a failed run (last 64 KB of stderr). */
  stderr: string;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  durationMs: number;
  /** Of the agent process, which also leads its process group; null when nothing started. */
  pid: number | null;
  usage?: RunUsage;
}

export type RunOutcome =
  | ({ ok: true } & RunRecord)
  | ({ ok: false; reason: RunFailureReason; message: string } & RunRecord);

/** Progress for a terminal UI: the current step or tool is the latest `step` event. */
/** The agent process's two output streams. */
export const OUTPUT_STREAMS = ["stdout", "stderr"] as const;
export type OutputStream = (typeof OUTPUT_STREAMS)[number];

export type RunnerEvent =
  | { type: "started"; runner: RunnerKind; pid: number | null }
  | { type: "output"; stream: OutputStream; line: string }
  | {
      type: "step";
      /** Short human text: "Bash: npm test", "Writing plan". */
      label: string;
      /** The tool in use, when the agent says (Bash, Write, Edit, Read, Agent…). */
      tool?: string;
      /** Which (sub-)agent is acting, when the agent delegates further. */
      agent?: string;
    }
  /** What the run has cost so far (cumulative), as the agent reports it while it works. */
  | { type: "usage"; usage: RunUsage }
  | {
      type: "finished";
      ok: boolean;
      reason?: RunFailureReason;
      exitCode: number | null;
      durationMs: number;
      usage?: RunUsage;
    };

export interface RunOptions {
  signal: AbortSignal;
  timeoutMs: number;
  /** The OS sandbox the agent runs in (runners/sandbox.ts); none: it runs as Baton's own child. */
  sandbox?: SandboxPolicy | undefined;
  /** Called synchronously from the output stream; it must not throw (an exception stops the agent and rejects run). */
  onEvent: (event: RunnerEvent) => void;
}

/**
 * Runs one delegation to completion. Every expected failure is a resolved outcome; `run` rejects only on
 * a bug (an exception from `onEvent`). When it settles, no process of the agent's group is left running.
 */
export interface Runner {
  readonly kind: RunnerKind;
  /** What it would start, for a dry run: the binary it found (or why none), the command, the script. */
  describe(): RunnerDescription;
  run(request: RunRequest, options: RunOptions): Promise<RunOutcome>;
}
