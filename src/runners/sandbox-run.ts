import { closeSync, mkdtempSync, openSync, readSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { ProcessResult, RunProcessOptions } from "../shared/process.js";
import { runProcess } from "../shared/process.js";
import { type SandboxPolicy, sandboxed } from "./sandbox.js";

/**
 * Setting up a sandbox can fail for a reason that is gone a moment later: a protected file bound by path
 * is replaced (another run's atomic store write) or deleted while bubblewrap mounts it. Such a start is
 * tried again; the agent never ran, so nothing of it is repeated.
 */
const SETUP_ATTEMPTS = 10;
const RETRY_DELAY_MS = 20;

/**
 * Runs `options.command` inside the sandbox. A start whose setup failed is started again, with the
 * paths looked at afresh, up to SETUP_ATTEMPTS times; one that started is never repeated, however it ended.
 * Bubblewrap writes `exit-code` on its status fd only after its command was executed: that, not the
 * exit code or stderr (which the agent controls), tells the two apart.
 */
export async function runSandboxed(
  policy: SandboxPolicy,
  options: RunProcessOptions,
): Promise<ProcessResult> {
  for (let attempt = 1; ; attempt++) {
    const status = openStatusFile();
    let result: ProcessResult;
    let started: boolean;
    try {
      const launched = sandboxed(policy, options.command, options.args ?? [], options.env ?? process.env);
      result = await runProcess({ ...options, ...launched, fd3: status });
      started = readStatus(status).includes('"exit-code"');
    } finally {
      closeSync(status);
    }
    if (started || result.ok || result.reason !== "exit") return result;
    if (attempt === SETUP_ATTEMPTS || options.signal?.aborted) return setupFailed(result, attempt);
    await sleep(RETRY_DELAY_MS * attempt);
  }
}

/** An agent that never started: its sandbox could not be set up, this many times in a row. */
function setupFailed(result: Extract<ProcessResult, { ok: false }>, attempts: number): ProcessResult {
  const said = result.stderr.trim().split("\n").at(-1)?.trim() ?? "";
  return {
    ...result,
    reason: "spawn_failed",
    message: `the agent's sandbox could not be set up (${attempts} attempts)${said ? `: ${said.slice(0, 300)}` : ""}`,
  };
}

/** A file with no name: only Baton and the bubblewrap it starts hold it, so no agent can write to it. */
function openStatusFile(): number {
  const dir = mkdtempSync(join(tmpdir(), "baton-sandbox-"));
  try {
    return openSync(join(dir, "status"), "w+", 0o600);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function readStatus(fd: number): string {
  const buffer = Buffer.alloc(4096);
  const read = readSync(fd, buffer, 0, buffer.length, 0);
  return buffer.toString("utf8", 0, read);
}
