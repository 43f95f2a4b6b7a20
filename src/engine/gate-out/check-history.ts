import { historyChanges } from "../gate-in/git-history.js";
import { type Gate, refuse } from "./gate-types.js";

/**
 * The agent may not write history: a commit of its own, an amended or reset baseline, a new or moved ref
 * (the sandbox makes .git read-only; this holds when it is off, and for whatever else ran meanwhile).
 */
export const checkHistory: Gate = async (ctx) => {
  if (!ctx.baseline) return { ok: true };
  const changes = await historyChanges(ctx.repoRoot, ctx.baseline);
  if (changes.length === 0) return { ok: true };
  return refuse(ctx, "HISTORY_CHANGED", `git history changed while the agent ran: ${changes.join("; ")}`);
};
