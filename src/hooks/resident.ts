import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { batonPaths } from "../shared/baton-paths.js";
import { allow, type Decision } from "./decision.js";
import type { StopHookInput } from "./hook-input-schema.js";
import type { Project } from "./project.js";

/**
 * The resident hook path: `bin/baton-hook` forwards each hook to a `baton serve` of the repository,
 * whose port is published in `.baton/serve.port`. The SessionStart hook starts that server when none
 * answers; a forwarder that finds no server runs the hook in-process, so nothing depends on it.
 */
export function portFilePath(root: string): string {
  return batonPaths(root).servePort;
}

export function publishPort(file: string, port: number): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${port}\n`);
}

/** Removes the port file if it still names this server (a newer one may have replaced it). */
export function unpublishPort(file: string, port: number): void {
  try {
    if (readFileSync(file, "utf8").trim() === String(port)) rmSync(file, { force: true });
  } catch {
    // already gone
  }
}

/** What answers on a port: Baton's hook server, something else, or nothing. */
async function probe(port: string | number): Promise<"baton" | "foreign" | "none"> {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(300) });
    return response.ok && response.headers.get("x-baton-hook") === "1" ? "baton" : "foreign";
  } catch {
    return "none";
  }
}

function startServer(root: string, args: string[]): boolean {
  const bin = process.argv[1];
  if (!bin) return false;
  const child = spawn(process.execPath, [bin, "serve", ...args], {
    cwd: root,
    detached: true,
    stdio: "ignore",
  });
  child.unref();
  return true;
}

/** SessionStart's reply when the session must hear about its hooks: shown to the person and the model. */
function warn(message: string): Decision {
  return { decision: "allow", note: message, reply: { systemMessage: message } };
}

/**
 * SessionStart with `--port N` (the http hooks): a Baton server must answer on that fixed port before the
 * first tool call, because Claude Code blocks every tool call while it cannot reach it.
 */
async function keepFixedPort(root: string, port: number): Promise<Decision> {
  const found = await probe(port);
  if (found === "baton") return allow("resident server running");
  if (found === "foreign") {
    return warn(
      `Baton's hooks call http://127.0.0.1:${port}, but something other than \`baton serve\` answers there: ` +
        `tool calls will fail until it is stopped, or \`baton init --hooks http --port N\` picks another port.`,
    );
  }
  if (!startServer(root, ["--port", String(port)])) return allow();
  for (let i = 0; i < 40; i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    if ((await probe(port)) === "baton") return allow("resident server started");
  }
  return warn(`\`baton serve --port ${port}\` did not start: tool calls will be blocked until it answers.`);
}

/** SessionStart: a resident server for this repository, started detached when none answers. */
export async function sessionStart(
  _input: StopHookInput,
  project: Project,
  env: { servePort?: number | undefined } = {},
): Promise<Decision> {
  if (env.servePort !== undefined) return keepFixedPort(project.root, env.servePort);
  const file = portFilePath(project.root);
  let port: string | undefined;
  try {
    port = readFileSync(file, "utf8").trim();
  } catch {
    port = undefined;
  }
  if (port && (await probe(port)) === "baton") return allow("resident server running");
  rmSync(file, { force: true });
  return allow(
    startServer(project.root, ["--port", "0", "--port-file", file]) ? "resident server started" : undefined,
  );
}
