import { readFileSync } from "node:fs";
import { isAbsolute, join, relative } from "node:path";
import { gitBlobId, gitLockWaitMs, runGit } from "../../shared/git.js";
import { gitConfigFingerprint } from "../../shared/git-config-fingerprint.js";
import { present } from "../../shared/present.js";
import type { GitBaseline } from "../../state/index.js";
import { readRefs } from "./git-history.js";
import { guardedSettings } from "./settings-fingerprint.js";

const git = (root: string, args: string[]) => runGit(root, args, { env: { GIT_OPTIONAL_LOCKS: "0" } });

/** git's object id of a file's bytes (what `git hash-object` prints); null when it does not exist. */
export function blobId(path: string): string | null {
  try {
    return gitBlobId(readFileSync(path));
  } catch {
    return null;
  }
}

/**
 * One `git status` (porcelain v2): the commit HEAD is on (null before the first commit) and the paths
 * that are changed or untracked. One process, where HEAD and the paths once took two.
 */
async function treeStatus(root: string): Promise<{ head: string | null; paths: string[] } | null> {
  const status = await git(root, [
    "status",
    "--porcelain=v2",
    "--branch",
    "-z",
    "--untracked-files=all",
    "--no-renames",
  ]);
  if (!status.ok) return null;
  let head: string | null = null;
  const paths: string[] = [];
  for (const entry of status.stdout.split("\0")) {
    if (entry.startsWith("# branch.oid ")) {
      const oid = entry.slice("# branch.oid ".length).trim();
      head = /^[0-9a-f]{40,64}$/.test(oid) ? oid : null;
    } else if (entry.startsWith("1 ")) paths.push(fieldsAfter(entry, 8));
    else if (entry.startsWith("u ")) paths.push(fieldsAfter(entry, 10));
    else if (entry.startsWith("? ")) paths.push(entry.slice(2));
  }
  return { head, paths };
}

/** What follows the first `count` space-separated fields (a path may hold spaces). */
function fieldsAfter(entry: string, count: number): string {
  let at = 0;
  for (let i = 0; i < count; i++) at = entry.indexOf(" ", at) + 1;
  return entry.slice(at);
}

/**
 * `.git/index.lock` left by a git process that was killed: every later `git add` fails until it goes.
 * A lock another git process holds for its moment (an editor's `git status`) is waited out, up to 10 s.
 * Null when there is none (or no repository). `lockPath`: where git keeps it (`rev-parse --git-path
 * index.lock` in `root`), when the caller already asked.
 */
export async function staleIndexLock(root: string, lockPath?: string): Promise<string | null> {
  let lock = lockPath;
  if (lock === undefined) {
    const path = await git(root, ["rev-parse", "--git-path", "index.lock"]);
    if (!path.ok) return null;
    lock = path.stdout.trim();
  }
  const absolute = isAbsolute(lock) ? lock : join(root, lock);
  for (let waited = 0; present(absolute); waited += 100) {
    if (waited >= gitLockWaitMs()) return absolute;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return null;
}

/**
 * The baseline of a run about to start in `root` (the repository, or a phase's worktree); null without git.
 * `settings`: for an agent Baton starts. A live session's settings are also its person's (Claude Code
 * writes a permission they grant into `.claude/settings.local.json`); the host's sandbox guards those.
 */
export async function readBaseline(
  root: string,
  options: { settings: boolean } = { settings: false },
): Promise<GitBaseline | null> {
  // Before anything is read: a file changed while the baseline is taken counts as changed during the run.
  const takenAt = Date.now();
  const status = await treeStatus(root);
  if (status === null) return null;
  const dirty: Record<string, string | null> = {};
  for (const path of status.paths) dirty[path] = blobId(join(root, path));
  const [refs, gitConfig] = await Promise.all([readRefs(root), gitConfigFingerprint(root)]);
  return {
    commit: status.head,
    dirty,
    ...(refs ? { refs: refs.refs, headRef: refs.head, staged: refs.staged } : {}),
    ...(options.settings ? { settings: guardedSettings(root) } : {}),
    ...(gitConfig ? { gitConfig } : {}),
    takenAt,
  };
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
  const now = await treeStatus(root);
  const candidates = new Set(now?.paths ?? []);
  if (baseline.commit !== null && now !== null) {
    // The agent committed on its own: what its commits changed counts as well.
    if (now.head !== null && now.head !== baseline.commit) {
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
