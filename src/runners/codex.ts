import { resolve } from "node:path";
import * as z from "zod/mini";
import { locateAgentCli, validRunnerOptions } from "./agent-cli.js";
import { failBeforeStart, runAgentProcess } from "./agent-process.js";
import { CodexEventInterpreter } from "./codex-stream.js";
import { delegationEnv } from "./context.js";
import { type PrivateFiles, withPrivateFiles } from "./private-file.js";
import type { Runner, RunnerDescription, RunOptions, RunOutcome, RunRequest } from "./runner-types.js";

export const CodexRunnerOptions = z.strictObject({
  /** A path (relative to the repository root) or a command name on PATH; default: PATH, then `@openai/codex`. */
  binary: z.optional(z.string().check(z.minLength(1))),
  model: z.optional(z.string().check(z.minLength(1))),
  /** `-s`: what the agent's shell may touch; default workspace-write (the repository). */
  sandbox: z.optional(z.enum(["read-only", "workspace-write", "danger-full-access"])),
  /** `-c key=value` overrides (TOML values), e.g. a model provider for an offline run. */
  config: z.optional(z.record(z.string().check(z.minLength(1)), z.string())),
  args: z.optional(z.array(z.string())),
  env: z.optional(z.record(z.string().check(z.regex(/^[A-Za-z_][A-Za-z0-9_]*$/)), z.string())),
  killGraceMs: z.optional(z.number().check(z.int(), z.minimum(0))),
});
export type CodexRunnerOptions = z.infer<typeof CodexRunnerOptions>;

/** The codex binary: configured, else `codex` on PATH, else the `@openai/codex` package's launcher. */
export function locateCodex(options: {
  binary?: string | undefined;
  baseDir: string;
  pathValue: string | undefined;
}) {
  return locateAgentCli({
    ...options,
    command: "codex",
    packageFile: "@openai/codex/bin/codex.js",
    install: "npm install @openai/codex",
  });
}

/**
 * `codex exec --json` with the prompt on stdin (no prompt argument: codex reads stdin to its end) and Baton's own
 * timeout: Codex retries an unreachable server for ever (contract 11.1). Codex has no agent definitions,
 * so the routed agent's instructions lead the prompt. It has no re-prompt either: an agent that stops before
 * its metadata is refused at GATE OUT (META_MISSING).
 */
export class CodexRunner implements Runner {
  readonly kind = "codex";
  readonly options: CodexRunnerOptions;

  constructor(
    options: unknown = {},
    private readonly context: { baseDir?: string; baseEnv?: NodeJS.ProcessEnv } = {},
  ) {
    this.options = validRunnerOptions(
      CodexRunnerOptions,
      options,
      "codex",
      '{ "type": "codex", "model": "gpt-5-codex", "sandbox": "workspace-write" }',
    );
  }

  describe(): RunnerDescription {
    const env = { ...(this.context.baseEnv ?? process.env), ...this.options.env };
    const binary = locateCodex({
      binary: this.options.binary,
      baseDir: this.context.baseDir ?? process.cwd(),
      pathValue: env["PATH"],
    });
    return { kind: this.kind, detail: binary.path ?? `no binary: ${binary.message}` };
  }

  run(request: RunRequest, options: RunOptions): Promise<RunOutcome> {
    return withPrivateFiles((files) => this.runWith(request, options, files));
  }

  private async runWith(request: RunRequest, options: RunOptions, files: PrivateFiles): Promise<RunOutcome> {
    const cwd = resolve(request.cwd);
    const env = {
      ...delegationEnv(request, this.context.baseEnv ?? process.env, files),
      ...this.options.env,
    };
    const binary = locateCodex({
      binary: this.options.binary,
      baseDir: this.context.baseDir ?? cwd,
      pathValue: env["PATH"],
    });
    if (binary.path === null) return failBeforeStart("spawn_failed", binary.message, options);
    const launcher = binary.path.endsWith(".js");
    const args = [
      "exec",
      "--json",
      "--skip-git-repo-check",
      "--cd",
      cwd,
      "-s",
      this.options.sandbox ?? "workspace-write",
    ];
    if (this.options.model ?? request.agent?.model)
      args.push("-m", (this.options.model ?? request.agent?.model)!);
    for (const [key, value] of Object.entries(this.options.config ?? {})) args.push("-c", `${key}=${value}`);
    args.push(...(this.options.args ?? []));
    const instructions = request.agent?.systemPrompt;
    const prompt = instructions ? `${instructions}\n\n---\n\n${request.prompt}` : request.prompt;
    // No prompt argument: `codex exec` then reads it from stdin, so a long focus never meets argv's limits.
    return runAgentProcess(
      "codex",
      {
        command: launcher ? process.execPath : binary.path,
        args: launcher ? [binary.path, ...args] : args,
        stdin: prompt,
        cwd,
        env,
        interpreter: new CodexEventInterpreter(),
        ...(this.options.killGraceMs !== undefined ? { killGraceMs: this.options.killGraceMs } : {}),
      },
      options,
    );
  }
}
