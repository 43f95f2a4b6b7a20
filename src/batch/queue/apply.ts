import { rmSync } from "node:fs";
import { join } from "node:path";
import { runGit, runGitWaitingForLock } from "../../shared/git.js";

/** A git command whose failure is an error naming the command and what git said. */
export async function git(cwd: string, args: string[]): Promise<string> {
  const result = await runGit(cwd, args);
  if (!result.ok) throw new Error(`git ${args.join(" ")}: ${result.stderr.trim() || result.message}`);
  return result.stdout.trim();
}

/**
 * Brings a worker's commit into a work tree as if its agent had written the files there: the commit must
 * be the tip of the branch the worker pushed; every file it changed since `base` is restored from it into
 * the work tree only (the index is left to the commit that records the result, waiting out another run's
 * lock), and every file it deleted is deleted. Returns a reason when it cannot.
 */
export async function applyWorkerCommit(
  cwd: string,
  base: string,
  worker: { branch: string; commit: string },
): Promise<string | null> {
  const tip = await git(cwd, ["rev-parse", "--verify", `refs/heads/${worker.branch}`]).catch(() => "");
  if (tip !== worker.commit) return `the worker's branch ${worker.branch} is not here (${tip || "missing"})`;
  const fields = (await git(cwd, ["diff", "--name-status", "--no-renames", "-z", base, worker.commit]))
    .split("\0")
    .filter(Boolean);
  const written: string[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    if (fields[i] === "D") rmSync(join(cwd, fields[i + 1]!), { force: true });
    else written.push(fields[i + 1]!);
  }
  if (written.length === 0) return null;
  const restored = await runGitWaitingForLock(cwd, [
    "restore",
    `--source=${worker.commit}`,
    "--worktree",
    "--",
    ...written,
  ]);
  return restored.ok
    ? null
    : `git restore of the worker's files: ${restored.stderr.trim() || restored.message}`;
}
