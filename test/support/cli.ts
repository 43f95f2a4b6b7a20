import { execFileSync, spawnSync } from "node:child_process";
import { appendFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

/** The built CLI, exactly as a user runs it (`npm test` builds dist/ first). */
export const BATON_BIN = resolve(import.meta.dirname, "../../bin/baton.js");

export interface CliResult {
  status: number;
  stdout: string;
  stderr: string;
}

export function runBaton(cwd: string, args: string[], env: NodeJS.ProcessEnv = {}): CliResult {
  const result = spawnSync(process.execPath, [BATON_BIN, ...args], {
    cwd,
    encoding: "utf8",
    env: { ...process.env, ...env },
  });
  return { status: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

/**
 * How tests remove their temp folders: a server or agent the test just stopped may still be finishing its last
 * write (a log line, its port file), which fails a plain recursive remove with ENOTEMPTY; retried a few times.
 */
export const REMOVE_OPTIONS = { recursive: true, force: true, maxRetries: 5, retryDelay: 200 } as const;

/** A fresh git repository in a temp dir; `cleanup` removes it. */
export function tempGitRepo(prefix = "baton-test-"): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  execFileSync("git", ["init", "-q", "-b", "main"], { cwd: dir });
  // Written, not set by two more git processes: every test makes one or more of these.
  appendFileSync(join(dir, ".git", "config"), "[user]\n\temail = test@example.com\n\tname = Baton Test\n");
  return { dir, cleanup: () => rmSync(dir, REMOVE_OPTIONS) };
}

/**
 * Waits until `check` holds or `ms` pass, whichever is first; the caller's next assertion says which. What
 * tests wait for is mostly a Node start (a server, an agent, a run), which takes seconds on a loaded machine.
 */
export async function waitFor(check: () => boolean, ms = 30_000, intervalMs = 50): Promise<void> {
  for (const end = Date.now() + ms; !check() && Date.now() < end; ) {
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

export function git(cwd: string, args: string[]): string {
  return execFileSync("git", args, { cwd, encoding: "utf8" });
}
