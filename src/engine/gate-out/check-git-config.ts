import { changedKeys, gitConfigFingerprint } from "../../shared/git-config-fingerprint.js";
import { type Gate, refuse } from "./gate-types.js";

/**
 * Git's configuration decides what programs git runs for Baton (clean and smudge filters, diff and merge
 * drivers, an fsmonitor, hooks, includes of other files), and Baton's GATE OUT and COMMIT run git outside any
 * sandbox. A run may not change any of it, in any scope (the repository's, the user's `~/.gitconfig`, which an
 * agent's sandbox can reach, an included file): first of all gates, before git runs anything that reads it.
 */
export const checkGitConfig: Gate = async (ctx) => {
  const before = ctx.baseline?.gitConfig;
  if (!before) return { ok: true };
  const now = await gitConfigFingerprint(ctx.repoRoot);
  const changed = now === null ? ["(git cannot read its configuration)"] : changedKeys(before, now);
  if (changed.length === 0) return { ok: true };
  return refuse(
    ctx,
    "GIT_CONFIG_CHANGED",
    `git's configuration changed during the run: ${changed.slice(0, 5).join(", ")}${changed.length > 5 ? ` and ${changed.length - 5} more` : ""}. Those settings make git run programs when Baton verifies and commits, outside any sandbox, so nothing is recorded; put them back as they were (git config --show-origin names the file) and run again`,
  );
};
