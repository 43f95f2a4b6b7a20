import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { isAbsolute, join, relative, sep } from "node:path";
import { runProcess } from "../shared/process.js";
import type { GitBaseline } from "../state/index.js";

async function git(root: string, args: string[]) {
  return runProcess({
    command: "git",
    args,
    cwd: root,
    env: { ...process.env, GIT_TERMINAL_PROMPT: "0", LC_ALL: "C", GIT_OPTIONAL_LOCKS: "0" },
    timeoutMs: 60_000,
    tailBytes: 64 << 20,
  });
}

/** git's object id of a file's bytes (what `git hash-object` prints); null when it does not exist. */
export function blobId(path: string): string | null {
  try {
    const bytes = readFileSync(path);
    return createHash("sha1").update(`blob ${bytes.length}\0`).update(bytes).digest("hex");
  } catch {
    return null;
  }
}

/** Paths git reports as changed or untracked (`status --porcelain -z`), renames as both ends. */
async function dirtyPaths(root: string): Promise<string[] | null> {
  const status = await git(root, ["status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames"]);
  if (!status.ok) return null;
  return status.stdout
    .split("\0")
    .filter((record) => record.length > 3)
    .map((record) => record.slice(3));
}

export async function isGitRepository(root: string): Promise<boolean> {
  if (existsSync(join(root, ".git"))) return true;
  return (await git(root, ["rev-parse", "--is-inside-work-tree"])).ok;
}

/**
 * `.git/index.lock` left by a git process that was killed: every later `git add` fails until it goes.
 * Null when there is none (or no repository).
 */
export async function staleIndexLock(root: string): Promise<string | null> {
  const path = await git(root, ["rev-parse", "--git-path", "index.lock"]);
  if (!path.ok) return null;
  const lock = path.stdout.trim();
  const absolute = isAbsolute(lock) ? lock : join(root, lock);
  return existsSync(absolute) ? absolute : null;
}

/** The baseline of a run about to start in `root` (the repository, or a phase's worktree); null without git. */
export async function readBaseline(root: string): Promise<GitBaseline | null> {
  if (!(await isGitRepository(root))) return null;
  const head = await git(root, ["rev-parse", "--verify", "--quiet", "HEAD"]);
  const paths = await dirtyPaths(root);
  if (paths === null) return null;
  const dirty: Record<string, string | null> = {};
  for (const path of paths) dirty[path] = blobId(join(root, path));
  return { commit: head.ok ? head.stdout.trim() : null, dirty };
}

/**
 * The files that changed since the baseline, repository-relative, sorted: differing from the base
 * commit (or untracked) and not exactly as they were dirty at the baseline, plus files dirty then
 * whose content moved since. `ignore` drops Baton's own paths (specs/, control files).
 */
export async function changedSince(
  root: string,
  baseline: GitBaseline,
  ignore: (path: string) => boolean,
): Promise<string[]> {
  const now = await dirtyPaths(root);
  const candidates = new Set(now ?? []);
  if (baseline.commit !== null) {
    const head = await git(root, ["rev-parse", "--verify", "--quiet", "HEAD"]);
    // The agent committed on its own: what its commits changed counts as well.
    if (head.ok && head.stdout.trim() !== baseline.commit) {
      const committed = await git(root, [
        "diff",
        "--name-only",
        "-z",
        "--no-renames",
        baseline.commit,
        "HEAD",
      ]);
      for (const path of committed.ok ? committed.stdout.split("\0") : []) if (path) candidates.add(path);
    }
  }
  for (const path of Object.keys(baseline.dirty)) candidates.add(path);
  const changed: string[] = [];
  for (const path of candidates) {
    if (ignore(path)) continue;
    const before = Object.hasOwn(baseline.dirty, path) ? baseline.dirty[path] : undefined;
    const current = blobId(join(root, path));
    if (before !== undefined) {
      if (before !== current) changed.push(path);
      continue;
    }
    changed.push(path);
  }
  return changed.sort();
}

/** Whether `path` (repository-relative) lies under `dir` (absolute). */
export function under(root: string, dir: string, path: string): boolean {
  const rel = relative(dir, join(root, path));
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

/** The task store's folder as a repository-relative prefix (`specs`): Baton's own files, never work. */
export function storePrefix(root: string, specsDir: string): string {
  return relative(root, specsDir).split(sep).join("/");
}
