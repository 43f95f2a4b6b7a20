import * as z from "zod/mini";
import type { Operation } from "../shared/operation-names.js";
import { perOperation } from "../shared/per-operation.js";
import { RUNNER_TYPES, type RunnerType } from "../shared/runner-names.js";
import {
  ArtifactNaming,
  type ConventionSource,
  SlugSeparator,
  TASK_TYPE_FIELDS,
  TASK_TYPE_KEYS,
  TaskPosition,
  type TaskTypeField,
  type TaskTypeKey,
} from "./repository-conventions.js";

/** Agents per operation for one language; a missing operation falls back to the `general` route. */
export const LanguageRoute = perOperation(z.string().check(z.minLength(1)));
export type LanguageRoute = z.infer<typeof LanguageRoute>;

/** Where Baton runs an agent: in its bubblewrap sandbox, or `off`, only on purpose (the evidence says so). */
export const SandboxMode = z.enum(["bubblewrap", "off"]);
export type SandboxMode = z.infer<typeof SandboxMode>;

export const SlugRules = z.strictObject({
  maxLength: z.optional(z.number().check(z.int(), z.minimum(8), z.maximum(200))),
  separator: z.optional(SlugSeparator),
});

/** A keyword rule for phase routing (tier 3): a phase whose text matches goes to `language`'s implement agent. */
export const PhaseRoutingRule = z.strictObject({
  pattern: z.string().check(
    z.minLength(1),
    z.refine((value) => {
      try {
        new RegExp(value);
        return true;
      } catch {
        return false;
      }
    }, "not a valid regular expression"),
  ),
  /** RegExp flags; default "i". */
  flags: z.optional(z.string().check(z.regex(/^[imsu]*$/))),
  language: z.string().check(z.minLength(1)),
});
export type PhaseRoutingRule = z.infer<typeof PhaseRoutingRule>;

/** How `implement` runs a plan's phases. */
export const PhasesConfig = z.strictObject({
  /** Phases of one wave that run at once; `--concurrency` overrides it per run. */
  concurrency: z.optional(z.number().check(z.int(), z.minimum(1), z.maximum(64))),
  /** Times a phase that reports work remaining is called again, counting the first call. */
  maxIterations: z.optional(z.number().check(z.int(), z.minimum(1), z.maximum(50))),
  /** The hard barrier refuses a smaller phase summary as a stub. */
  minSummaryBytes: z.optional(z.number().check(z.int(), z.minimum(1))),
  /** Tier 1: the language each `implementer:` value routes to. */
  implementers: z.optional(
    z.strictObject({ lean: z.optional(z.string()), software: z.optional(z.string()) }),
  ),
  /** Tier 3, first match wins; replaces the default rules. */
  routing: z.optional(z.array(PhaseRoutingRule)),
});

const Usd = z.number().check(z.minimum(0));

/** Spending limits in USD; a run that would cross one stops with BUDGET_EXCEEDED (docs/configuration.md). */
export const BudgetsConfig = z.strictObject({
  /** Every operation run, or per operation (`{"research": 0.5, "implement": 5}`); `--max-cost` overrides. */
  operation: z.optional(z.union([Usd, perOperation(Usd)])),
  /** Everything spent on one task, across runs. */
  task: z.optional(Usd),
  /** One `implement` run of a plan, all its phases. */
  planRun: z.optional(Usd),
  /** Everything spent in the repository in one UTC day. */
  day: z.optional(Usd),
});
export type BudgetsConfig = z.infer<typeof BudgetsConfig>;

/** `baton lint`: rules to turn off, by id (`references/unknown-agent`) or prefix (`git/`). */
export const LintConfig = z.strictObject({
  disable: z.optional(z.array(z.string().check(z.minLength(1)))),
});

/**
 * A project's own check (`npm test`, `lake build`, `ruff check .`): run after the agent returns, in the
 * tree where the work happened; a failing check refuses the result (CHECK_FAILED).
 */
/** The machine-readable test reports GATE OUT counts from, besides each check's exit. */
export const ReportFormat = z.enum(["junit", "tap", "jest-json", "go-json"]);
export type ReportFormat = z.infer<typeof ReportFormat>;

export const CheckConfig = z.strictObject({
  name: z.string().check(z.minLength(1)),
  /** A shell command, run by /bin/sh in the work tree. */
  run: z.string().check(z.minLength(1)),
  timeoutMs: z.optional(z.number().check(z.int(), z.minimum(100))),
  /** Tasks of these languages only (default: every task). */
  languages: z.optional(z.array(z.string().check(z.minLength(1)))),
  /** After each phase of a plan, after a whole implement operation, or both (default). */
  when: z.optional(z.enum(["phase", "operation", "both"])),
  /**
   * The JUnit XML file the check's runner writes (relative to the work tree), for runners Baton cannot ask
   * through the environment (vitest, jest, go-junit-report …); node --test and pytest need none.
   */
  report: z.optional(z.string().check(z.minLength(1))),
  /** What the report is (default junit): `tap`, `jest-json` (jest, vitest) and `go-json` are read from `report`, else from the check's output. */
  format: z.optional(ReportFormat),
  /**
   * A folder outside the repository (absolute, or `~/…`) holding files the agent never sees: hidden from
   * every sandbox, copied to `$BATON_HOLDOUT_DIR` only while the check runs, at an operation's GATE OUT.
   */
  holdout: z.optional(z.string().check(z.minLength(1))),
  /**
   * Whether the check may reach the network (default: no — its sandbox has a loopback of its own and
   * nothing else, so code under test neither fetches nor sends anything, nor reaches a server of this machine).
   */
  network: z.optional(z.boolean()),
});
export type CheckConfig = z.infer<typeof CheckConfig>;

/** Whether `implement` waits for a person's approval of the task's current plan. */
const ApprovalRequirement = z.enum(["plan", "off"]);
type ApprovalRequirement = z.infer<typeof ApprovalRequirement>;

/** Approvals (docs/approvals.md): off unless configured. */
export const ApprovalsConfig = z.strictObject({
  /** Every task type (`"plan"`), or per type, `"*"` for the others (`{"lean": "plan", "*": "off"}`). */
  implement: z.optional(z.union([ApprovalRequirement, z.record(z.string(), ApprovalRequirement)])),
  /** Told once of each plan that waits (an HTTP POST of JSON: the task, the plan's path and its hash). */
  webhook: z.optional(z.url({ protocol: /^https?$/ })),
});

export const BatonConfigFile = z.strictObject({
  $schema: z.optional(z.string()),
  specsDir: z.optional(z.string().check(z.minLength(1))),
  languages: z.optional(z.array(z.string().check(z.regex(/^[a-z][a-z0-9_-]*$/)))),
  defaultLanguage: z.optional(z.string()),
  routing: z.optional(z.record(z.string(), LanguageRoute)),
  /** Default: learned from the repository's task folders and artifacts (v1 when it has none). */
  artifactNaming: z.optional(ArtifactNaming),
  /** The state.json key and TODO.md field of a task's type; default: what the repository's entries use. */
  taskTypeKey: z.optional(z.enum(TASK_TYPE_KEYS)),
  taskTypeField: z.optional(z.enum(TASK_TYPE_FIELDS)),
  slug: z.optional(SlugRules),
  newTaskPosition: z.optional(TaskPosition),
  lockTimeoutMs: z.optional(z.number().check(z.int(), z.minimum(100))),
  /** Which agent runner operations use; its own schema (src/runners) validates the rest. */
  runner: z.optional(z.looseObject({ type: z.enum(RUNNER_TYPES) })),
  /** Per-operation timeouts; the originals were research 3600 s, plan 1800 s, implement 7200 s. */
  timeoutsMs: z.optional(perOperation(z.number().check(z.int(), z.minimum(100)))),
  /** GATE OUT refuses smaller artifacts as stubs. */
  minArtifactBytes: z.optional(z.number().check(z.int(), z.minimum(1))),
  /** Commit each operation's result (COMMIT checkpoint); `--no-commit` turns it off per run. */
  commit: z.optional(z.boolean()),
  phases: z.optional(PhasesConfig),
  checks: z.optional(z.array(CheckConfig)),
  /** Sections a research report must have, by heading (`["Summary", "Findings"]`); none by default. */
  research: z.optional(z.strictObject({ sections: z.optional(z.array(z.string().check(z.minLength(1)))) })),
  lint: z.optional(LintConfig),
  budgets: z.optional(BudgetsConfig),
  approvals: z.optional(ApprovalsConfig),
  /**
   * Where headless agents run: in a bubblewrap sandbox (the default; a run refuses to start when it cannot
   * run) or, on purpose, not at all (`off`; the evidence says so and `baton verify` lists such results apart).
   */
  sandbox: z.optional(SandboxMode),
});
export type BatonConfigFile = z.infer<typeof BatonConfigFile>;

/** One project check as the loaded configuration holds it: every default filled in. */
export type ConfiguredCheck = Required<
  Omit<CheckConfig, "languages" | "report" | "holdout" | "format" | "network">
> & {
  format: ReportFormat;
  /** Absent: no network. */
  network?: boolean;
  languages: string[] | null;
  report: string | null;
  holdout: string | null;
};

export interface BatonConfig {
  /** Absolute path of the repository root (where baton.config.* lives, or the git top level). */
  root: string;
  /** Where the config came from, or null when only defaults apply. */
  source: string | null;
  specsDir: string;
  languages: string[];
  defaultLanguage: string;
  routing: Record<string, Required<LanguageRoute>>;
  artifactNaming: ArtifactNaming;
  /** Whether `artifactNaming` was configured, learned from the repository's folders, or Baton's default. */
  artifactNamingFrom: ConventionSource;
  taskTypeKey: TaskTypeKey | undefined;
  taskTypeField: TaskTypeField | undefined;
  slug: { maxLength: number; separator: SlugSeparator };
  newTaskPosition: TaskPosition;
  lockTimeoutMs: number;
  runner: { type: RunnerType; [key: string]: unknown };
  timeoutsMs: Record<Operation, number>;
  minArtifactBytes: number;
  commit: boolean;
  phases: {
    concurrency: number;
    maxIterations: number;
    minSummaryBytes: number;
    implementers: { lean: string; software: string };
    routing: PhaseRoutingRule[];
  };
  checks: ConfiguredCheck[];
  research: { sections: string[] };
  lint: { disable: string[] };
  budgets: BudgetsConfig;
  approvals: {
    /** Task type → requirement; `"*"`: every other type. Empty: no approvals. */
    implement: Record<string, ApprovalRequirement>;
    webhook: string | null;
  };
  sandbox: SandboxMode;
}

/** Whether `implement` on a task of this type needs its plan approved first. */
export function planApprovalRequired(config: Pick<BatonConfig, "approvals">, taskType: string): boolean {
  const rules = config.approvals.implement;
  return (Object.hasOwn(rules, taskType) ? rules[taskType] : rules["*"]) === "plan";
}
