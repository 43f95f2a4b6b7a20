import { spawn } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";

/**
 * The real Claude Code binary for offline tests. It ships inside the dev dependency
 * `@anthropic-ai/claude-agent-sdk` as a per-platform optional package
 * (`@anthropic-ai/claude-agent-sdk-linux-x64/claude`), so it is found the way the SDK finds it:
 * resolve `<platform package>/claude` from the SDK's own location.
 */

const SDK = "@anthropic-ai/claude-agent-sdk";

export class ClaudeBinaryNotFoundError extends Error {
  override name = "ClaudeBinaryNotFoundError";
}

/** glibc unless Node's report says otherwise, as the SDK decides (musl builds cannot run on glibc). */
function isMusl(): boolean {
  if (process.platform !== "linux") return false;
  const report = process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined;
  return report?.header?.glibcVersionRuntime === undefined;
}

/** Platform package names to try, in the SDK's order. */
export function platformPackages(
  platform: string = process.platform,
  arch: string = process.arch,
  musl: boolean = isMusl(),
): string[] {
  if (platform !== "linux") return [`${SDK}-${platform}-${arch}`];
  const glibc = `${SDK}-linux-${arch}`;
  return musl ? [`${glibc}-musl`, glibc] : [glibc, `${glibc}-musl`];
}

/** The binary's path, or null with the reasons it was not found. */
export function locateClaudeBinary(
  packages: string[] = platformPackages(),
): { path: string } | { path: null; reason: string } {
  const tried: string[] = [];
  let resolveFrom: NodeRequire;
  try {
    // Resolving from the SDK's entry (not from this file) finds its platform package even when npm
    // nested it under the SDK instead of hoisting it.
    resolveFrom = createRequire(createRequire(import.meta.url).resolve(SDK));
  } catch {
    return { path: null, reason: `${SDK} is not installed (run npm ci; it is a devDependency)` };
  }
  const executable = process.platform === "win32" ? "claude.exe" : "claude";
  for (const pkg of packages) {
    try {
      const path = resolveFrom.resolve(`${pkg}/${executable}`);
      accessSync(path, constants.X_OK);
      return { path };
    } catch (error) {
      tried.push(`${pkg}/${executable}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
    }
  }
  return {
    path: null,
    reason: `no Claude Code binary for ${process.platform}-${process.arch} (tried ${tried.join("; ")}); reinstall without --omit=optional`,
  };
}

export function findClaudeBinary(): string {
  const found = locateClaudeBinary();
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
