import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { resolve } from "node:path";
import { ACCEPTS_TRAILER } from "../../evidence/index.js";
import { runGit } from "../../shared/git.js";
import { sealedCommit } from "./sealed-commit.js";

/**
 * A sealed commit with nothing in it but the word of the person who ran it: each of `commits` (which carry
 * Baton's Session trailer without its seal) was made on purpose. It changes no file; GATE IN builds on it
 * and `baton verify` names it beside each commit it accepts.
 */
export async function commitAcceptance(
  root: string,
  commits: readonly string[],
): Promise<{ ok: true; sha: string } | { ok: false; reason: string }> {
  const head = await runGit(root, ["rev-parse", "--verify", "-q", "HEAD"]);
  if (!head.ok) return { ok: false, reason: "the repository has no commit yet" };
  const parent = head.stdout.trim();
  const where = await runGit(root, [
    "rev-parse",
    "--git-path",
    `baton-index-${randomBytes(6).toString("hex")}`,
  ]);
  const env = { GIT_INDEX_FILE: resolve(root, where.stdout.trim()) };
  try {
    const read = await runGit(root, ["read-tree", parent], { env });
    if (!read.ok) return { ok: false, reason: `git read-tree failed: ${read.stderr.trim()}` };
    const subject =
      commits.length === 1
        ? `baton: accept commit ${commits[0]!.slice(0, 12)}, made outside Baton`
        : `baton: accept ${commits.length} commits made outside Baton`;
    const message = `${subject}\n\n${commits.map((c) => `${ACCEPTS_TRAILER}: ${c}`).join("\n")}\n`;
    const made = await sealedCommit(root, env, message, [parent], parent);
    return made.ok ? made : { ok: false, reason: made.reason };
  } finally {
    rmSync(env.GIT_INDEX_FILE, { force: true });
  }
}
