import { resolve } from "node:path";
import * as z from "zod/mini";
import { ConfigError, formatIssues, validationIssues } from "../shared/index.js";
import { runAgentProcess } from "./agent-process.js";
import {
  delegationEnv,
  PLACEHOLDERS,
  placeholderValues,
  substitute,
  unknownPlaceholders,
} from "./context.js";
import { type PrivateFiles, withPrivateFiles } from "./private-file.js";
import type { Runner, RunnerDescription, RunOptions, RunOutcome, RunRequest } from "./runner-types.js";

/**
 * Any agent CLI (codex, opencode, aider, a script). `{placeholder}`s are replaced inside each argument on
 * its own, so a prompt full of quotes and `$(…)` reaches the agent as one verbatim argument.
 * `promptVia`: "argument" puts the prompt where `{prompt}` is written (or last, when no argument says
 * `{prompt}`); "stdin" writes it to stdin. Default: "argument" when an argument says `{prompt}`, else "stdin".
 */
export const CommandTemplate = z.strictObject({
  command: z.string().check(z.minLength(1)),
  args: z.optional(z.array(z.string())),
  promptVia: z.optional(z.enum(["stdin", "argument"])),
  /** Extra environment variables; values may use placeholders. */
  env: z.optional(z.record(z.string().check(z.regex(/^[A-Za-z_][A-Za-z0-9_]*$/)), z.string())),
  killGraceMs: z.optional(z.number().check(z.int(), z.minimum(0))),
});
export type CommandTemplate = z.infer<typeof CommandTemplate>;

/** Validates a template; the error names the field (`args[1]: unknown placeholder {promt}`). */
export function parseCommandTemplate(
  value: unknown,
  source = "command runner",
): { ok: true; template: CommandTemplate } | { ok: false; message: string } {
  const issues = validationIssues(CommandTemplate, value);
  if (issues) return { ok: false, message: `${source}: ${formatIssues(issues)}` };
  const template = value as CommandTemplate;
  const problems: string[] = [];
  const check = (where: string, text: string) => {
    for (const name of unknownPlaceholders(text)) {
      problems.push(
        `${where}: unknown placeholder {${name}} (known: ${PLACEHOLDERS.map((p) => `{${p}}`).join(", ")})`,
      );
    }
  };
  check("command", template.command);
  if (template.command.includes("{prompt}")) problems.push("command: {prompt} may only appear in args");
  template.args?.forEach((arg, i) => {
    check(`args[${i}]`, arg);
    if (template.promptVia === "stdin" && arg.includes("{prompt}")) {
      problems.push(`args[${i}]: {prompt} with promptVia "stdin" would send the prompt twice`);
    }
  });
  for (const [key, text] of Object.entries(template.env ?? {})) check(`env.${key}`, text);
  if (problems.length > 0) return { ok: false, message: `${source}: ${problems.join("; ")}` };
  return { ok: true, template };
}

/** The exact command line and stdin for one request: what the runner spawns, also useful for --dry-run output. */
export function commandInvocation(
  template: CommandTemplate,
  request: RunRequest,
  files: PrivateFiles,
): { command: string; args: string[]; stdin?: string; env: NodeJS.ProcessEnv } {
  const values = placeholderValues(request);
  const args = template.args ?? [];
  const promptVia = template.promptVia ?? (args.some((a) => a.includes("{prompt}")) ? "argument" : "stdin");
  const substituted = args.map((arg) => substitute(arg, values));
  if (promptVia === "argument" && !args.some((a) => a.includes("{prompt}"))) substituted.push(request.prompt);
  const env = delegationEnv(request, process.env, files);
  for (const [key, text] of Object.entries(template.env ?? {})) env[key] = substitute(text, values);
  return {
    command: substitute(template.command, values),
    args: substituted,
    env,
    ...(promptVia === "stdin" ? { stdin: request.prompt } : {}),
  };
}

export class CommandRunner implements Runner {
  readonly kind = "command";
  readonly template: CommandTemplate;

  /** Throws ConfigError when the template is invalid: a configuration mistake, not a run outcome. */
  constructor(template: unknown) {
    const parsed = parseCommandTemplate(template);
    if (!parsed.ok) {
      throw new ConfigError(parsed.message, {
        hint: 'Example: { "command": "codex", "args": ["exec", "{prompt}"] }',
      });
    }
    this.template = parsed.template;
  }

  describe(): RunnerDescription {
    return { kind: this.kind, detail: [this.template.command, ...(this.template.args ?? [])].join(" ") };
  }

  run(request: RunRequest, options: RunOptions): Promise<RunOutcome> {
    return withPrivateFiles((files) =>
      runAgentProcess(
        "command",
        {
          ...commandInvocation(this.template, request, files),
          cwd: resolve(request.cwd),
          ...(this.template.killGraceMs !== undefined ? { killGraceMs: this.template.killGraceMs } : {}),
        },
        options,
      ),
    );
  }
}
