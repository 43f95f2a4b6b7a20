import * as z from "zod/mini";
import { ConfigError, formatIssues, validationIssues } from "../shared/index.js";
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

/**
 * A runner from configuration. Throws ConfigError naming the field when the configuration is invalid; a
 * script path or a relative Claude binary path resolves against `baseDir` (the repository root).
 */
export function createRunner(config: RunnerConfig, options: { baseDir?: string } = {}): Runner {
  const issues = validationIssues(RunnerConfig, config);
  if (issues) throw new ConfigError(`runner: ${formatIssues(issues)}`);
  if (config.type === "claude") {
    const { type: _type, ...claude } = config;
    return new ClaudeRunner(claude, options.baseDir !== undefined ? { baseDir: options.baseDir } : {});
  }
  if (config.type === "opencode") {
    const { type: _type, ...opencode } = config;
    return new OpencodeRunner(opencode, options.baseDir !== undefined ? { baseDir: options.baseDir } : {});
  }
  if (config.type === "codex") {
    const { type: _type, ...codex } = config;
    return new CodexRunner(codex, options.baseDir !== undefined ? { baseDir: options.baseDir } : {});
  }
  if (config.type === "command") {
    const { type: _type, ...template } = config;
    return new CommandRunner(template);
  }
  return new ScriptedRunner({
    script: config.script,
    ...(options.baseDir !== undefined ? { baseDir: options.baseDir } : {}),
    ...(config.agentEntry !== undefined ? { agentEntry: config.agentEntry } : {}),
    ...(config.killGraceMs !== undefined ? { killGraceMs: config.killGraceMs } : {}),
  });
}
