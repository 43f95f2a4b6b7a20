import { join, resolve } from "node:path";
import * as z from "zod/mini";
import { present } from "../shared/present.js";
import { Stopwatch } from "../shared/time.js";
import { locateAgentCli, validRunnerOptions } from "./agent-cli.js";
import { addUsage, failBeforeStart, runAgentProcess } from "./agent-process.js";
import { delegationEnv } from "./context.js";
import { OpencodeEventInterpreter } from "./opencode-stream.js";
import { type PrivateFiles, withPrivateFiles } from "./private-file.js";
import type {
  AgentDefinition,
  Runner,
  RunnerDescription,
  RunOptions,
  RunOutcome,
  RunRequest,
  RunUsage,
} from "./runner-types.js";

export const OpencodeRunnerOptions = z.strictObject({
  /** A path (relative to the repository root) or a command name on PATH; default: PATH, then the `opencode-ai` package. */
  binary: z.optional(z.string().check(z.minLength(1))),
  /** `provider/model`, e.g. `anthropic/claude-sonnet-4-5`; default: the agent's, else opencode's own. */
  model: z.optional(z.string().check(z.minLength(1))),
  /** Appended after Baton's own arguments. */
  args: z.optional(z.array(z.string())),
  env: z.optional(z.record(z.string().check(z.regex(/^[A-Za-z_][A-Za-z0-9_]*$/)), z.string())),
  /**
   * `opencode run` exits at the agent's first stop; when the return metadata is not there yet, Baton
   * prompts it again in the same session, this many times (contract 5.4: no stop hook can hold it).
   */
  reprompts: z.optional(z.number().check(z.int(), z.minimum(0), z.maximum(5))),
  killGraceMs: z.optional(z.number().check(z.int(), z.minimum(0))),
});
export type OpencodeRunnerOptions = z.infer<typeof OpencodeRunnerOptions>;

/** The opencode binary: the configured one, else `opencode` on PATH, else the `opencode-ai` package's. */
export function locateOpencode(options: {
  binary?: string | undefined;
  baseDir: string;
  pathValue: string | undefined;
}) {
  return locateAgentCli({
    ...options,
    command: "opencode",
    packageFile: "opencode-ai/bin/opencode.exe",
    install: "npm install opencode-ai",
  });
}

/**
 * The agent, defined inline for this run (OPENCODE_CONFIG_CONTENT is merged over the project's config)
 * as a primary agent: `opencode run --agent` falls back to `build` for a `subagent`-mode agent (contract 2.1).
 * Its body is read from `promptFile` through opencode's `{file:…}` substitution: an environment string over
 * 128 KiB fails the spawn with E2BIG, and an agent file can be that long.
 */
function agentConfig(agent: AgentDefinition, model: string | undefined, promptFile: string): string {
  const tools = agent.tools ? Object.fromEntries(agent.tools.map((t) => [t.toLowerCase(), true])) : undefined;
  const definition = {
    mode: "primary",
    description: agent.description ?? `Baton agent ${agent.name}`,
    prompt: `{file:${promptFile}}`,
    ...(model ? { model } : {}),
    ...(tools && agent.tools?.some((t) => /^[a-z]+$/.test(t)) ? { tools } : {}),
  };
  return JSON.stringify({ agent: { [agent.name]: definition } });
}

export class OpencodeRunner implements Runner {
  readonly kind = "opencode";
  readonly options: OpencodeRunnerOptions;

  constructor(
    options: unknown = {},
    private readonly context: { baseDir?: string; baseEnv?: NodeJS.ProcessEnv } = {},
  ) {
    this.options = validRunnerOptions(
      OpencodeRunnerOptions,
      options,
      "opencode",
      '{ "type": "opencode", "model": "anthropic/claude-sonnet-4-5", "reprompts": 2 }',
    );
  }

  describe(): RunnerDescription {
    const env = { ...(this.context.baseEnv ?? process.env), ...this.options.env };
    const binary = locateOpencode({
      binary: this.options.binary,
      baseDir: this.context.baseDir ?? process.cwd(),
      pathValue: env["PATH"],
    });
    return { kind: this.kind, detail: binary.path ?? `no binary: ${binary.message}` };
  }

  /**
   * `opencode run --format json`: the agent (defined inline, or the repository's), the model, the session to
   * go on. No message words: the prompt goes on stdin, which `opencode run` reads whole when it is not a
   * terminal, so a long focus never meets argv's limits.
   */
  private args(
    request: RunRequest,
    call: { inline: boolean; model: string | undefined; sessionId: string | undefined },
  ): string[] {
    const args = ["run", "--format", "json"];
    if (call.inline && request.agent) args.push("--agent", request.agent.name);
    else if (request.agent && request.agent.systemPrompt === undefined)
      args.push("--agent", request.agent.name);
    if (call.model) args.push("--model", call.model);
    if (call.sessionId) args.push("--session", call.sessionId);
    args.push(...(this.options.args ?? []));
    return args;
  }

  run(request: RunRequest, options: RunOptions): Promise<RunOutcome> {
    return withPrivateFiles((files) => this.runWith(request, options, files));
  }

  private async runWith(request: RunRequest, options: RunOptions, files: PrivateFiles): Promise<RunOutcome> {
    const cwd = resolve(request.cwd);
    const env: NodeJS.ProcessEnv = {
      ...delegationEnv(request, this.context.baseEnv ?? process.env, files),
      ...this.options.env,
    };
    const binary = locateOpencode({
      binary: this.options.binary,
      baseDir: this.context.baseDir ?? cwd,
      pathValue: env["PATH"],
    });
    if (binary.path === null) return failBeforeStart("spawn_failed", binary.message, options);
    const model = this.options.model ?? request.agent?.model;
    const body = request.agent?.systemPrompt;
    const inline =
      body === undefined ? null : agentConfig(request.agent!, model, files.write("agent-prompt.md", body));
    if (inline) env["OPENCODE_CONFIG_CONTENT"] = mergeConfig(env["OPENCODE_CONFIG_CONTENT"], inline);
    return this.runAttempts(request, options, { binary: binary.path, cwd, env, model, inline: !!inline });
  }

  /** `opencode run`, then again in the same session while the agent owes its metadata (up to `reprompts`). */
  private async runAttempts(
    request: RunRequest,
    options: RunOptions,
    call: { binary: string; cwd: string; env: NodeJS.ProcessEnv; model: string | undefined; inline: boolean },
  ): Promise<RunOutcome> {
    const { cwd, env, model } = call;
    const started = new Stopwatch();
    const metadata = join(cwd, request.context.metadata_file_path);
    let sessionId: string | undefined;
    let usage: RunUsage | undefined;
    let prompt = request.prompt;
    for (let attempt = 0; ; attempt++) {
      const interpreter = new OpencodeEventInterpreter();
      const args = this.args(request, { inline: call.inline, model, sessionId });
      const remaining = options.timeoutMs - started.elapsedMs();
      const outcome = await runAgentProcess(
        "opencode",
        {
          command: call.binary,
          args,
          stdin: prompt,
          cwd,
          env,
          interpreter,
          ...(this.options.killGraceMs !== undefined ? { killGraceMs: this.options.killGraceMs } : {}),
        },
        {
          ...options,
          timeoutMs: Math.max(remaining, 1),
          // A re-prompt is a new process whose own count starts at zero: usage is the run's, across attempts.
          onEvent: (event) =>
            options.onEvent(
              event.type === "usage"
                ? { type: "usage", usage: addUsage(usage, event.usage) ?? event.usage }
                : event,
            ),
        },
      );
      usage = addUsage(usage, outcome.usage);
      if (usage) outcome.usage = usage;
      sessionId ??= interpreter.sessionId;
      // An agent that stopped before its last write is asked again, in the same session, with what is owed.
      const owed = outcome.ok && !present(metadata) && sessionId !== undefined;
      if (!owed || attempt >= (this.options.reprompts ?? 2) || options.signal.aborted) return outcome;
      prompt = `You stopped before writing the return metadata. Baton records nothing without it: write it now to ${request.context.metadata_file_path}, as your instructions say, then stop.`;
    }
  }
}

function mergeConfig(existing: string | undefined, inline: string): string {
  if (!existing) return inline;
  try {
    const base = JSON.parse(existing) as Record<string, unknown>;
    const add = JSON.parse(inline) as { agent: Record<string, unknown> };
    return JSON.stringify({ ...base, agent: { ...((base["agent"] as object) ?? {}), ...add.agent } });
  } catch {
    return inline;
  }
}
