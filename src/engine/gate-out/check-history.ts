import { historyChanges } from "../run/index.js";
import { type Gate, refuse } from "./gate-types.js";

/**
 * The agent may not write history: a commit of its own, an amended or reset baseline, a new or moved ref.
 * Where it ran in Baton's sandbox, git's folder was read-only to it: what moved history meanwhile was a
 * person (a commit, a pull), and the result is recorded on top of it (COMMIT lands on the HEAD it finds).
 * Unsandboxed, or in a session or on a queue worker Baton cannot vouch for, a change is refused.
 */
export const checkHistory: Gate = async (ctx) => {
  if (!ctx.baseline || ctx.expected.gitReadOnly) return { ok: true };
  const changes = await historyChanges(ctx.repoRoot, ctx.baseline);
  if (changes.length === 0) return { ok: true };
  return refuse(ctx, "HISTORY_CHANGED", `git history changed while the agent ran: ${changes.join("; ")}`);
};
