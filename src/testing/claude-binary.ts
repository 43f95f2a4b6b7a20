import { spawn } from "node:child_process";
import { join } from "node:path";
import { locateBundledClaude } from "../runners/claude-binary.js";

/**
 * The real Claude Code binary for offline tests: the copy bundled in the dev dependency
 * `@anthropic-ai/claude-agent-sdk`, found by the runner's own lookup (src/runners/claude-binary.ts).
 */
export { locateBundledClaude as locateClaudeBinary, platformPackages } from "../runners/claude-binary.js";

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
const INHERITED_OUT = /^(ANTHROPIC_|CLAUDE_|CLAUDECODE$|OTEL_|AWS_BEARER_TOKEN_BEDROCK$|MCP_)/;

/**
 * The environment for running Claude Code against a local fake API (contract 1.1): only
 * `POST /v1/messages` reaches the base URL, no other traffic, no auto-update, and an empty config
 * dir so nothing from ~/.claude (settings, agents, hooks, transcripts) takes part; its temp files go
 * there too, so removing `configDir` removes every trace of the run.
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
    CLAUDE_CONFIG_DIR: configDir,
    // Its temp files (sub-agent output files, fswatch probes, sockets) otherwise pile up in /tmp/claude-<uid>.
    CLAUDE_CODE_TMPDIR: join(configDir, "tmp"),
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
}

export interface RunClaudeOptions {
  cwd: string;
  args: string[];
  env: Record<string, string>;
  /** Its process group is killed after this long (the run then resolves with `timedOut: true`). */
  timeoutMs: number;
  binary?: string;
}

/** Runs the binary to completion; never rejects on a non-zero exit, so tests can show its output. */
export function runClaude(options: RunClaudeOptions): Promise<ClaudeRun> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(options.binary ?? findClaudeBinary(), options.args, {
      cwd: options.cwd,
      env: options.env,
      stdio: ["ignore", "pipe", "pipe"],
      // Its own process group, so a timeout also kills the shells its Bash tool started (they hold
      // our pipes open, and "close" would otherwise wait for them).
      detached: true,
    });
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        child.kill("SIGKILL");
      }
    }, options.timeoutMs);
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      resolve({
        code,
        signal,
        timedOut,
        stdout,
        stderr,
        messages: parseJsonLines(stdout),
        durationMs: Date.now() - started,
      });
    });
  });
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
