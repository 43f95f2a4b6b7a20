import * as z from "zod/mini";
import { ConfigError, formatIssues, validationIssues } from "../shared/index.js";
import type { RunnerType } from "../shared/runner-names.js";
import { ClaudeRunner, ClaudeRunnerOptions } from "./claude.js";
import { CodexRunner, CodexRunnerOptions } from "./codex.js";
import { CommandRunner, CommandTemplate } from "./command.js";
import { OpencodeRunner, OpencodeRunnerOptions } from "./opencode.js";
import type { Runner } from "./runner-types.js";
import { ScriptedRunner } from "./scripted.js";

export const CommandRunnerConfig = z.extend(CommandTemplate, { type: z.literal("command") });
export type CommandRunnerConfig = z.infer<typeof CommandRunnerConfig>;

export const ScriptedRunnerConfig = z.strictObject({
  type: z.literal("scripted"),
  /** A path to a JSON script file, or the script itself (validated by parseScript for field-exact messages). */
  script: z.union([z.string().check(z.minLength(1)), z.record(z.string(), z.unknown())]),
  agentEntry: z.optional(z.string()),
  killGraceMs: z.optional(z.number().check(z.int(), z.minimum(0))),
});
export type ScriptedRunnerConfig = z.infer<typeof ScriptedRunnerConfig>;

export const ClaudeRunnerConfig = z.extend(ClaudeRunnerOptions, { type: z.literal("claude") });
export type ClaudeRunnerConfig = z.infer<typeof ClaudeRunnerConfig>;

export const OpencodeRunnerConfig = z.extend(OpencodeRunnerOptions, { type: z.literal("opencode") });
export type OpencodeRunnerConfig = z.infer<typeof OpencodeRunnerConfig>;

export const CodexRunnerConfig = z.extend(CodexRunnerOptions, { type: z.literal("codex") });
export type CodexRunnerConfig = z.infer<typeof CodexRunnerConfig>;

export const RunnerConfig = z.discriminatedUnion("type", [
  ClaudeRunnerConfig,
  CodexRunnerConfig,
  OpencodeRunnerConfig,
  CommandRunnerConfig,
  ScriptedRunnerConfig,
]);
export type RunnerConfig = z.infer<typeof RunnerConfig>;

/** One runner kind: how its configuration reads, and how a runner is made from it. */
interface RunnerEntry<C extends { type: RunnerType }> {
  create(config: C, baseDir: string | undefined): Runner;
}

const withBase = (baseDir: string | undefined) => (baseDir !== undefined ? { baseDir } : {});

/**
 * The registry of runners, keyed by every name in RUNNER_TYPES (shared/runner-names.ts): a name without an
 * entry, or an entry without a name, does not compile. The config schema and the CLI's choices come from the
 * same names.
 */
export const RUNNERS: { [T in RunnerType]: RunnerEntry<Extract<RunnerConfig, { type: T }>> } = {
  claude: { create: ({ type: _type, ...claude }, baseDir) => new ClaudeRunner(claude, withBase(baseDir)) },
  opencode: {
    create: ({ type: _type, ...opencode }, baseDir) => new OpencodeRunner(opencode, withBase(baseDir)),
  },
  codex: { create: ({ type: _type, ...codex }, baseDir) => new CodexRunner(codex, withBase(baseDir)) },
  command: { create: ({ type: _type, ...template }) => new CommandRunner(template) },
  scripted: {
    create: (config, baseDir) =>
      new ScriptedRunner({
        script: config.script,
        ...withBase(baseDir),
        ...(config.agentEntry !== undefined ? { agentEntry: config.agentEntry } : {}),
        ...(config.killGraceMs !== undefined ? { killGraceMs: config.killGraceMs } : {}),
      }),
  },
};

/**
 * A runner from configuration. Throws ConfigError naming the field when the configuration is invalid; a
 * script path or a relative Claude binary path resolves against `baseDir` (the repository root).
 */
export function createRunner(config: RunnerConfig, options: { baseDir?: string } = {}): Runner {
  const issues = validationIssues(RunnerConfig, config);
  if (issues) throw new ConfigError(`runner: ${formatIssues(issues)}`);
  const entry = RUNNERS[config.type] as RunnerEntry<RunnerConfig>;
  return entry.create(config, options.baseDir);
}
