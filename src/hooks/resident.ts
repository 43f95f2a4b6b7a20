// side doors: a hook starts on every tool call; the state barrel would bring the store's writers and zod, the
// hosts' barrel their installers, lint rules and agent readers.

import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { hookSession } from "../hosts/session-registry.js";
import { BATON_DIR, batonKeyDir, batonPaths } from "../shared/baton-paths.js";
import { fetchHealth, secretId } from "../shared/hook-port.js";
import { endSession, hostPid, registerSession } from "../state/live-sessions.js";
import { allow, type Decision } from "./decision.js";
import type { StopHookInput } from "./hook-input-schema.js";
import { serverHookSecret } from "./hook-secret.js";
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

/**
 * What answers on a port: Baton's hook server, something else, or nothing. A Baton server that seals with
 * another key folder than this session's (started under another environment) is "stale": its seals would
 * not open for this session's gate-out, so it is replaced.
 */
async function probe(root: string, port: string | number): Promise<"baton" | "foreign" | "none" | "stale"> {
  const answer = await fetchHealth(port);
  if (answer === null) return "none";
  if (!answer.ok || !answer.baton) return "foreign";
  const health = answer.body;
  // One that holds another hook secret (an older installation's) would refuse this session's every call.
  const sameSecret = (health["secretId"] ?? "") === secretId(serverHookSecret(root));
  if ((health["keyDir"] === undefined || health["keyDir"] === batonKeyDir()) && sameSecret) return "baton";
  if (typeof health["pid"] === "number") await stopServer(health["pid"]);
  return "stale";
}

/** Stops a Baton server and waits (up to 2 s) until its port is free. */
async function stopServer(pid: number): Promise<void> {
  try {
    process.kill(pid, "SIGTERM");
  } catch {
    return;
  }
  for (let i = 0; i < 40; i++) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function startServer(root: string, args: string[]): boolean {
  const bin = process.argv[1];
  if (!bin) return false;
  // --sessions: it ends when the last session of the repository has ended.
  const child = spawn(process.execPath, [bin, "serve", "--sessions", ...args], {
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
  const found = await probe(root, port);
  if (found === "baton") return allow("resident server running");
  if (found === "stale") await new Promise((resolve) => setTimeout(resolve, 50));
  if (found === "foreign") {
    return warn(
      `Baton's hooks call http://127.0.0.1:${port}, but something other than \`baton serve\` answers there: ` +
        `tool calls will fail until it is stopped, or \`baton init --hooks http --port N\` picks another port.`,
    );
  }
  if (!startServer(root, ["--port", String(port)])) return allow();
  for (let i = 0; i < 40; i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    if ((await probe(root, port)) === "baton") return allow("resident server started");
  }
  return warn(`\`baton serve --port ${port}\` did not start: tool calls will be blocked until it answers.`);
}

/**
 * SessionStart: the session is recorded as live (so a server started for it ends with the last one), and a
 * resident server for this repository is started detached when none answers.
 */
export async function sessionStart(
  input: StopHookInput,
  project: Project,
  env: { servePort?: number | undefined } = {},
): Promise<Decision> {
  registerSession(
    join(project.specsDir, BATON_DIR),
    input.session_id,
    hostPid(),
    hookSession(input.baton_host).keyReach(project.root),
  );
  if (env.servePort !== undefined) return keepFixedPort(project.root, env.servePort);
  const file = portFilePath(project.root);
  let port: string | undefined;
  try {
    port = readFileSync(file, "utf8").trim();
  } catch {
    port = undefined;
  }
  if (port && (await probe(project.root, port)) === "baton") return allow("resident server running");
  rmSync(file, { force: true });
  return allow(
    startServer(project.root, ["--port", "0", "--port-file", file]) ? "resident server started" : undefined,
  );
}

/** SessionEnd: the session is no longer live; the resident server ends once no session is. */
export function sessionEnd(input: StopHookInput, project: Project): Decision {
  endSession(join(project.specsDir, BATON_DIR), input.session_id);
  return allow();
}

/**
 * Stops the resident servers of this repository (`baton init --uninstall`): the one its port file names and
 * the one on the HTTP hooks' port, each only when its health says it serves this repository.
 */
export async function stopRepositoryServers(root: string, ports: readonly number[]): Promise<number[]> {
  const candidates = new Set(ports);
  try {
    const published = Number(readFileSync(portFilePath(root), "utf8").trim());
    if (Number.isInteger(published) && published > 0) candidates.add(published);
  } catch {
    // no resident server published
  }
  const stopped: number[] = [];
  for (const port of candidates) {
    const health = (await fetchHealth(port))?.body;
    const pid = health?.["pid"];
    if (typeof pid !== "number" || !sameFolder(health?.["root"], root)) continue;
    await stopServer(pid);
    stopped.push(pid);
  }
  rmSync(portFilePath(root), { force: true });
  return stopped;
}

function sameFolder(a: unknown, b: string): boolean {
  if (typeof a !== "string") return false;
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
}
