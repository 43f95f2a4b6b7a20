import { sealedMessage } from "../../evidence/index.js";
import { runGit, runGitWaitingForLock } from "../../shared/git.js";

const git = (root: string, args: string[], options: { env?: Record<string, string>; stdin?: string } = {}) =>
  runGit(root, args, { timeoutMs: 60_000, ...options });

export type SealedCommit =
  | { ok: true; sha: string }
  /** HEAD is no longer `expectedHead`: someone committed meanwhile; nothing was changed. */
  | { ok: false; moved: true; reason: string }
  | { ok: false; moved: false; reason: string };

/**
 * A commit of the index at `env` on `parents`, its message sealed with Baton's key over that tree and those
 * parents, and HEAD moved to it only if HEAD is still `expectedHead` (null: unborn). `git commit` would put
 * the commit on whatever HEAD is by then — a person's commit landing meanwhile would be undone by a tree read
 * before it — and would not let Baton sign what it commits. The user's commit signing still applies.
 */
export async function sealedCommit(
  root: string,
  env: Record<string, string>,
  message: string,
  parents: readonly string[],
  expectedHead: string | null,
  /** false: never the user's commit signing (a phase's commit in its worktree only carries the work). */
  userSigning = true,
): Promise<SealedCommit> {
  const written = await git(root, ["write-tree"], { env });
  if (!written.ok) return { ok: false, moved: false, reason: `git write-tree failed: ${why(written)}` };
  const tree = written.stdout.trim();
  const gpg = userSigning ? await git(root, ["config", "--bool", "--get", "commit.gpgSign"]) : null;
  const made = await git(
    root,
    [
      "commit-tree",
      ...(gpg?.stdout.trim() === "true" ? ["-S"] : []),
      tree,
      ...parents.flatMap((p) => ["-p", p]),
      "-F",
      "-",
    ],
    { stdin: sealedMessage(message, tree, parents) },
  );
  if (!made.ok) return { ok: false, moved: false, reason: `git commit-tree failed: ${why(made)}` };
  const sha = made.stdout.trim();
  const subject = message.split("\n")[0] ?? "";
  const moved = await runGitWaitingForLock(
    root,
    ["update-ref", "-m", `commit: ${subject}`, "HEAD", sha, expectedHead ?? ""],
    { timeoutMs: 60_000 },
  );
  if (moved.ok) return { ok: true, sha };
  const head = await git(root, ["rev-parse", "--verify", "-q", "HEAD"]);
  const now = head.ok ? head.stdout.trim() : null;
  if (now !== expectedHead)
    return { ok: false, moved: true, reason: `HEAD moved while Baton committed (now ${now?.slice(0, 12)})` };
  return { ok: false, moved: false, reason: `git update-ref failed: ${why(moved)}` };
}

const why = (result: { stderr: string; message?: string }) =>
  result.stderr.trim() || result.message || "no message";
