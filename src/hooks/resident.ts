import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { allow, type Decision } from "./decision.js";
import type { Project } from "./project.js";
import type { StopHookInput } from "./schema.js";

/**
 * The resident hook path: `bin/baton-hook` forwards each hook to a `baton serve` of the repository,
 * whose port is published in `.baton/serve.port`. The SessionStart hook starts that server when none
 * answers; a forwarder that finds no server runs the hook in-process, so nothing depends on it.
 */
export function portFilePath(root: string): string {
  return join(root, ".baton", "serve.port");
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

async function answers(port: string): Promise<boolean> {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(300) });
    return response.ok;
  } catch {
    return false;
  }
}

/** SessionStart: a resident server for this repository, started detached when none answers. */
export async function sessionStart(_input: StopHookInput, project: Project): Promise<Decision> {
  const file = portFilePath(project.root);
  let port: string | undefined;
  try {
    port = readFileSync(file, "utf8").trim();
  } catch {
    port = undefined;
  }
  if (port && (await answers(port))) return allow("resident server running");
  rmSync(file, { force: true });
  const bin = process.argv[1];
  if (!bin) return allow();
  const child = spawn(process.execPath, [bin, "serve", "--port", "0", "--port-file", file], {
    cwd: project.root,
    detached: true,
    stdio: "ignore",
  });
  child.unref();
  return allow("resident server started");
}
