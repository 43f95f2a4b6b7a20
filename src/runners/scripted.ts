import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { ConfigError } from "../shared/index.js";
import { scriptedAgentEntry } from "../shared/package.js";
import { present } from "../shared/present.js";
import { failBeforeStart, runAgentProcess } from "./agent-process.js";
import { delegationEnv } from "./context.js";
import { withPrivateFiles } from "./private-file.js";
import type { Runner, RunnerDescription, RunOptions, RunOutcome, RunRequest } from "./runner-types.js";
import { parseScript, planScript, type Script } from "./script.js";

export interface ScriptedRunnerOptions {
  /** The script itself, or the path of a JSON file holding it (read at every run, so edits apply). */
  script: unknown;
  /** Resolves a script path; default: the current directory. */
  baseDir?: string;
  /** The child entry to run with node; default: `dist/runners/scripted-agent.js` of the baton package. */
  agentEntry?: string;
  killGraceMs?: number;
}

/**
 * Replays a declared script in a child process (`node scripted-agent.js`, plan on stdin) through the same
 * process helper as a real agent. It drives the demo, the tests and --dry-run.
 */
export class ScriptedRunner implements Runner {
  readonly kind = "scripted";
  private readonly script: { inline: Script } | { path: string; given: string };
  private readonly agentEntry: string | undefined;
  private readonly killGraceMs: number | undefined;

  /** Throws ConfigError for an inline script that does not validate: a configuration mistake. */
  constructor(options: ScriptedRunnerOptions) {
    if (typeof options.script === "string") {
      this.script = {
        path: resolve(options.baseDir ?? process.cwd(), options.script),
        given: options.script,
      };
    } else {
      const parsed = parseScript(options.script);
      if (!parsed.ok) throw new ConfigError(parsed.message);
      this.script = { inline: parsed.script };
    }
    this.agentEntry = options.agentEntry;
    this.killGraceMs = options.killGraceMs;
  }

  describe(): RunnerDescription {
    return { kind: this.kind, detail: "given" in this.script ? this.script.given : "inline script" };
  }

  async run(request: RunRequest, options: RunOptions): Promise<RunOutcome> {
    const loaded =
      "inline" in this.script
        ? { ok: true as const, script: this.script.inline }
        : await loadScript(this.script.path);
    if (!loaded.ok) return failBeforeStart("invalid_request", loaded.message, options);
    const planned = planScript(loaded.script, request);
    if (!planned.ok) return failBeforeStart("invalid_request", planned.message, options);
    const entry = this.agentEntry ?? scriptedAgentEntry();
    if (!present(entry)) {
      return failBeforeStart(
        "spawn_failed",
        `scripted agent not found at ${entry}; run \`npm run build\``,
        options,
      );
    }
    return withPrivateFiles((files) =>
      runAgentProcess(
        "scripted",
        {
          command: process.execPath,
          args: [entry],
          cwd: resolve(request.cwd),
          env: delegationEnv(request, process.env, files),
          stdin: JSON.stringify(planned.plan),
          ...(loaded.script.usage ? { usage: loaded.script.usage } : {}),
          ...(this.killGraceMs !== undefined ? { killGraceMs: this.killGraceMs } : {}),
        },
        options,
      ),
    );
  }
}

export async function loadScript(
  path: string,
): Promise<{ ok: true; script: Script } | { ok: false; message: string }> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    return {
      ok: false,
      message: `${path}: cannot read the script (${(error as NodeJS.ErrnoException).code ?? error})`,
    };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, message: `${path}: invalid JSON (${(error as Error).message})` };
  }
  return parseScript(value, path);
}

export { findPackageRoot, scriptedAgentEntry } from "../shared/package.js";
