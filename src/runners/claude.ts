import { resolve } from "node:path";
import * as z from "zod/mini";
import { ConfigError, formatIssues, validationIssues } from "../shared/index.js";
import { failBeforeStart, runAgentProcess } from "./agent-process.js";
import { locateClaude } from "./claude-binary.js";
import { ClaudeStreamInterpreter } from "./claude-stream.js";
import { delegationEnv } from "./context.js";
import { type PrivateFiles, withPrivateFiles } from "./private-file.js";
import type {
  AgentDefinition,
  Runner,
  RunnerDescription,
  RunOptions,
  RunOutcome,
  RunRequest,
} from "./runner-types.js";

/** Claude Code's permission modes (contract 13.1). */
export const CLAUDE_PERMISSION_MODES = [
  "default",
  "acceptEdits",
  "bypassPermissions",
  "plan",
  "dontAsk",
  "auto",
] as const;

export const ClaudeRunnerOptions = z.strictObject({
  /** A path (relative to the repository root) or a command name looked up on PATH; default: see locateClaude. */
  binary: z.optional(z.string().check(z.minLength(1))),
  /** Appended after Baton's own arguments, e.g. ["--max-turns", "80"]. */
  args: z.optional(z.array(z.string())),
  /**
   * Default: Claude's default mode, with the agent's tools pre-approved through --allowedTools.
   * bypassPermissions as root also needs IS_SANDBOX=1 in `env` (contract 1.2).
   */
  permissionMode: z.optional(z.enum(CLAUDE_PERMISSION_MODES)),
  /** Added to the agent's environment (e.g. IS_SANDBOX, ANTHROPIC_BASE_URL). */
  env: z.optional(z.record(z.string().check(z.regex(/^[A-Za-z_][A-Za-z0-9_]*$/)), z.string())),
  /**
   * --setting-sources: which settings files (and with them hooks, `.claude/agents`, commands) Claude
   * loads; [] isolates the run from both the user's and the project's. Default: Claude's own.
   */
  settingSources: z.optional(z.array(z.enum(["user", "project", "local"]))),
  killGraceMs: z.optional(z.number().check(z.int(), z.minimum(0))),
});
export type ClaudeRunnerOptions = z.infer<typeof ClaudeRunnerOptions>;

/**
 * The command line for one request, without the binary, what goes to its stdin, and the agent definition
 * for the file at `agentsFile`. The agent becomes the session's main thread: `--agents` defines it (its body
 * as the system prompt, its tools, its model) and `--agent` selects it. Neither the prompt nor the agent's
 * body is ever in argv: the prompt carries the user's focus and the body is a whole agent file, and either
 * may be long (an argument over 128 KiB fails the spawn with E2BIG) or read as an option.
 */
export function claudeInvocation(
  options: ClaudeRunnerOptions,
  request: RunRequest,
  agentsFile = "agents.json",
): { args: string[]; stdin: string; agents: string | null } {
  const { prompt, agent } = request;
  const args = ["-p"];
  args.push("--output-format", "stream-json", "--verbose");
  if (options.settingSources) args.push("--setting-sources", options.settingSources.join(","));
  const agents = agent ? agentDefinitions(agent) : null;
  if (agent) {
    // Without a body there is nothing to define: `--agent` then picks the agent Claude itself knows by
    // that name (.claude/agents, ~/.claude/agents) and fails clearly when there is none.
    if (agents) args.push("--agents", agentsFile, "--agent", agent.name);
    else args.push("--agent", agent.name, ...(agent.model ? ["--model", agent.model] : []));
  }
  const mode = options.permissionMode;
  if (mode !== undefined && mode !== "default") args.push("--permission-mode", mode);
  // Bypass approves everything already; otherwise the agent's own tool list is what it may use unasked.
  if (mode !== "bypassPermissions" && agent?.tools?.length) {
    args.push("--allowedTools", agent.tools.join(","));
  }
  args.push(...(options.args ?? []));
  return { args, stdin: prompt, agents };
}

/** `--agents`' JSON for an agent with a body (with -p, Claude reads it from a file); null without one. */
export function agentDefinitions(agent: AgentDefinition): string | null {
  if (agent.systemPrompt === undefined) return null;
  const definition = {
    description: agent.description ?? `Baton agent ${agent.name}`,
    prompt: agent.systemPrompt,
    ...(agent.tools ? { tools: agent.tools } : {}),
    ...(agent.model ? { model: agent.model } : {}),
  };
  return JSON.stringify({ [agent.name]: definition });
}

export class ClaudeRunner implements Runner {
  readonly kind = "claude";
  readonly options: ClaudeRunnerOptions;
  private readonly baseDir: string | undefined;
  private readonly baseEnv: NodeJS.ProcessEnv | undefined;

  /**
   * Throws ConfigError for invalid options. `baseDir` resolves a relative `binary`; `baseEnv` replaces
   * Baton's own environment as the starting point (tests pass one without the developer's Claude settings).
   */
  constructor(options: unknown = {}, context: { baseDir?: string; baseEnv?: NodeJS.ProcessEnv } = {}) {
    const issues = validationIssues(ClaudeRunnerOptions, options);
    if (issues) {
      throw new ConfigError(`claude runner: ${formatIssues(issues)}`, {
        hint: 'Example: { "type": "claude", "permissionMode": "bypassPermissions", "env": { "IS_SANDBOX": "1" } }',
      });
    }
    this.options = options as ClaudeRunnerOptions;
    this.baseDir = context.baseDir;
    this.baseEnv = context.baseEnv;
  }

  describe(): RunnerDescription {
    const env = { ...(this.baseEnv ?? process.env), ...this.options.env };
    const binary = locateClaude({
      ...(this.options.binary !== undefined ? { binary: this.options.binary } : {}),
      baseDir: this.baseDir ?? process.cwd(),
      pathValue: env["PATH"],
    });
    return { kind: this.kind, detail: binary.path ?? `no binary: ${binary.message}` };
  }

  run(request: RunRequest, options: RunOptions): Promise<RunOutcome> {
    return withPrivateFiles((files) => this.runWith(request, options, files));
  }

  private async runWith(request: RunRequest, options: RunOptions, files: PrivateFiles): Promise<RunOutcome> {
    const env = { ...delegationEnv(request, this.baseEnv ?? process.env, files), ...this.options.env };
    const binary = locateClaude({
      ...(this.options.binary !== undefined ? { binary: this.options.binary } : {}),
      baseDir: this.baseDir ?? resolve(request.cwd),
      pathValue: env["PATH"],
    });
    if (binary.path === null) return failBeforeStart("spawn_failed", binary.message, options);
    const cwd = resolve(request.cwd);
    const interpreter = new ClaudeStreamInterpreter(cwd);
    const agents = request.agent ? agentDefinitions(request.agent) : null;
    const agentsFile = agents === null ? undefined : files.write("agents.json", agents);
    const { args, stdin } = claudeInvocation(this.options, request, agentsFile);
    const outcome = await runAgentProcess(
      "claude",
      {
        command: binary.path,
        args,
        stdin,
        cwd,
        env,
        interpreter,
        ...(this.options.killGraceMs !== undefined ? { killGraceMs: this.options.killGraceMs } : {}),
      },
      options,
    );
    // A Claude that exits before its first result says why only on stderr, which the message carries.
    if (!outcome.ok && outcome.reason === "exit" && /root\/sudo/.test(outcome.message)) {
      outcome.message +=
        ' (as root, add "IS_SANDBOX": "1" to the claude runner\'s env, or leave permissionMode unset)';
    }
    return outcome;
  }
}
