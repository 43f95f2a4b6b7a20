import { join } from "node:path";
import { locateBundledClaude } from "../runners/index.js";
import { runProcess } from "../shared/process.js";

/**
 * The real Claude Code binary for offline tests: the copy bundled in the dev dependency
 * `@anthropic-ai/claude-agent-sdk`, found by the runner's own lookup (src/runners/claude-binary.ts).
 */
export { locateBundledClaude as locateClaudeBinary, platformPackages } from "../runners/index.js";

export class ClaudeBinaryNotFoundError extends Error {
  override name = "ClaudeBinaryNotFoundError";
}

export function findClaudeBinary(): string {
  const found = locateBundledClaude();
  if (found.path === null) throw new ClaudeBinaryNotFoundError(found.reason);
  return found.path;
}

/**
 * Variables a developer's shell (or an enclosing Claude Code session) may hold that would send the
 * binary elsewhere, change its model or auth, or mark it as nested; none must leak into a test run.
 */
const INHERITED_OUT = /^(ANTHROPIC_|CLAUDE_|CLAUDECODE$|OTEL_|AWS_BEARER_TOKEN_BEDROCK$|MCP_|BASH_ENV$|ENV$)/;

/**
 * The environment for running Claude Code against a local fake API (contract 1.1): only
 * `POST /v1/messages` reaches the base URL, no other traffic, no auto-update, and an empty config
 * dir so nothing from ~/.claude (settings, agents, hooks, transcripts) takes part; its temp files go
 * there too, so removing `configDir` removes every trace of the run.
 *
 * HOME is a folder inside `configDir` too: the Bash tool runs every command in a login shell (`bash -c -l`),
 * which sources the developer's ~/.profile and ~/.bashrc. On a machine whose .bashrc runs `pyenv init`, that
 * cost over a second of CPU per tool call, and a rehash lock left by a killed shell stalled every later call
 * for 60 s. The run must not depend on whose machine it is; git's global config stays out for the same reason.
 */
export function claudeOfflineEnv(
  baseUrl: string,
  configDir: string,
  base: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(base)) {
    if (value !== undefined && !INHERITED_OUT.test(key)) env[key] = value;
  }
  const noProxy = [base["NO_PROXY"] ?? base["no_proxy"], "127.0.0.1", "localhost"].filter(Boolean).join(",");
  return {
    ...env,
    ANTHROPIC_BASE_URL: baseUrl,
    ANTHROPIC_API_KEY: "sk-test",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_ERROR_REPORTING: "1",
    // Needed for bypassPermissions as root (contract 1.2); harmless otherwise.
    IS_SANDBOX: "1",
    HOME: join(configDir, "home"),
    CLAUDE_CONFIG_DIR: configDir,
    // Its temp files (sub-agent output files, fswatch probes, sockets) otherwise pile up in /tmp/claude-<uid>;
    // TMPDIR too: a session with only the first still left a $TMPDIR/claude-<uid> folder behind.
    CLAUDE_CODE_TMPDIR: join(configDir, "tmp"),
    TMPDIR: join(configDir, "tmp"),
    NO_PROXY: noProxy,
    no_proxy: noProxy,
  };
}

export interface ClaudeRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
  /** stdout lines parsed as JSON (stream-json output); lines that are not JSON are skipped. */
  messages: Array<Record<string, unknown>>;
  durationMs: number;
  /** Also the process group id. */
  pid: number;
}

export interface RunClaudeOptions {
  cwd: string;
  args: string[];
  env: Record<string, string>;
  /** Its process group is killed after this long (the run then resolves with `timedOut: true`). */
  timeoutMs: number;
  binary?: string;
}

/**
 * Runs the binary to completion through the project's process helper (its own process group, so a
 * timeout also kills the shells its Bash tool started); never rejects on a non-zero exit, so tests
 * can show its output.
 */
export async function runClaude(options: RunClaudeOptions): Promise<ClaudeRun> {
  const result = await runProcess({
    command: options.binary ?? findClaudeBinary(),
    args: options.args,
    cwd: options.cwd,
    env: options.env,
    timeoutMs: options.timeoutMs,
    // A test run has nothing to save on a timeout: kill at once, as the old helper did.
    killGraceMs: 0,
    // Tests parse the whole stream-json output.
    tailBytes: 64 * 1024 * 1024,
  });
  if ((!result.ok && result.reason === "spawn_failed") || result.pid === null) {
    throw new Error(result.ok ? "the process started without a pid" : result.message);
  }
  return {
    code: result.exitCode,
    signal: result.signal,
    timedOut: !result.ok && result.reason === "timeout",
    stdout: result.stdout,
    stderr: result.stderr,
    messages: parseJsonLines(result.stdout),
    durationMs: result.durationMs,
    pid: result.pid,
  };
}

export function parseJsonLines(text: string): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = [];
  for (const line of text.split("\n")) {
    if (!line.startsWith("{")) continue;
    try {
      out.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      // A partial last line of a killed run is expected; the caller sees it in `stdout`.
    }
  }
  return out;
}
