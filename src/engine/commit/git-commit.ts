import { existsSync } from "node:fs";
import { join, relative } from "node:path";
import { CONTROL_FILE_GLOBS, TEMP_FILE_GLOB } from "../../shared/baton-paths.js";
import { runGit, runGitWaitingForLock } from "../../shared/git.js";

/** Control files live in task folders while a run is open; they are never part of a commit. */
const CONTROL_FILES = CONTROL_FILE_GLOBS;

/**
 * Temp files of Baton's atomic writes (`.<name>.baton-<pid>-<hex>.tmp`): one left by a write that was
 * killed is never staged, wherever it lies.
 */
export const TEMP_FILE_EXCLUDE = `:(exclude,glob)**/${TEMP_FILE_GLOB}`;

export type CommitResult =
  | { ok: true; committed: true; sha: string }
  | { ok: true; committed: false; reason: string }
  | { ok: false; reason: string };

const git = (root: string, args: string[]) => runGit(root, args, { timeoutMs: 60_000 });
// add and commit take the index lock: a concurrent `git status` (an editor, Claude Code) is waited out.
const gitWrite = (root: string, args: string[]) => runGitWaitingForLock(root, args, { timeoutMs: 60_000 });

/** Subjects of the commits that carry this session's trailer (null without git), newest first. */
export async function sessionCommitSubjects(root: string, sessionId: string): Promise<string[] | null> {
  const log = await git(root, ["log", "--fixed-strings", `--grep=Session: ${sessionId}`, "--format=%s"]);
  return log.ok ? log.stdout.split("\n").filter((s) => s !== "") : null;
}

/** Paths that exist, or that git tracks (a deletion to commit); anything else would fail `git add`. */
async function existingOrTracked(root: string, paths: string[]): Promise<string[]> {
  const missing = paths.filter((p) => !existsSync(join(root, p)));
  if (missing.length === 0) return paths;
  const tracked = await git(root, ["ls-files", "-z", "--", ...missing]);
  const known = new Set(tracked.ok ? tracked.stdout.split("\0").filter((p) => p !== "") : []);
  return paths.filter((p) => !missing.includes(p) || known.has(p));
}

/**
 * COMMIT: stage only the task folder and the state files (never `git add -A`, which let concurrent
 * agents commit each other's files), then commit with the session trailer. Nothing staged means no
 * commit at all, never an empty one.
 */
export async function commitTaskChanges(request: {
  root: string;
  paths: string[];
  taskFolder: string | null;
  subject: string;
  sessionId: string;
}): Promise<CommitResult> {
  if (!existsSync(join(request.root, ".git"))) {
    const inside = await git(request.root, ["rev-parse", "--is-inside-work-tree"]);
    if (!inside.ok) return { ok: true, committed: false, reason: "not a git repository" };
  }
  const pathspecs = await existingOrTracked(
    request.root,
    request.paths.map((p) => relative(request.root, p)),
  );
  if (request.taskFolder && existsSync(request.taskFolder)) {
    const folder = relative(request.root, request.taskFolder);
    pathspecs.push(folder, ...CONTROL_FILES.map((f) => `:(exclude)${folder}/${f}`));
  }
  const included = pathspecs.filter((p) => !p.startsWith(":("));
  // Only exclusions would make `git add --all` take the whole tree.
  if (included.length === 0) return { ok: true, committed: false, reason: "nothing to commit" };
  pathspecs.push(TEMP_FILE_EXCLUDE);
  const add = await gitWrite(request.root, ["add", "--all", "--", ...pathspecs]);
  if (!add.ok) return { ok: false, reason: `git add failed: ${add.stderr.trim() || add.message}` };
  const message = `${request.subject}\n\nSession: ${request.sessionId}\n`;
  const commit = await gitWrite(request.root, ["commit", "--quiet", "-m", message, "--", ...included]);
  if (!commit.ok) {
    // Nothing staged under these paths is not a failure: there is no commit, never an empty one.
    const said = `${commit.stdout}\n${commit.stderr}`;
    if (/nothing (added )?to commit|no changes added to commit/.test(said)) {
      return { ok: true, committed: false, reason: "nothing to commit" };
    }
    return { ok: false, reason: `git commit failed: ${commit.stderr.trim() || commit.message}` };
  }
  const head = await git(request.root, ["rev-parse", "HEAD"]);
  return { ok: true, committed: true, sha: head.stdout.trim() };
}
