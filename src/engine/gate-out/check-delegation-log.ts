import { type Gate, refuse } from "./gate-types.js";

/**
 * In-session GATE OUT, before anything the delegation log says is believed: every line carries Baton's chained
 * seal (none added, dropped, moved or cut off), and the hosts' settings were never weaker than `baton init`
 * left them while the checkpoint was open (with the sandbox or the hooks off, no record after it counts).
 */
export const checkDelegationLog: Gate = (ctx) => {
  const p = ctx.expected.provenance;
  if (!p) return { ok: true };
  if (p.view.forged.length > 0) {
    return refuse(
      ctx,
      "DELEGATION_LOG_FORGED",
      `the delegation log has ${p.view.forged.length} line(s) Baton did not write (their seal is not Baton's key's), the first: ${p.view.forged[0]}; something other than Baton's hooks wrote it, so none of its record counts. Give the checkpoint up with baton recover --force and delegate again; nothing was recorded`,
    );
  }
  if (p.view.guards.length > 0) {
    return refuse(
      ctx,
      "SETTINGS_WEAKENED",
      `while the checkpoint was open, Claude Code's settings were weaker than baton init left them: ${p.view.guards.join("; ")}. With the sandbox or Baton's hooks off, nothing of what followed can be vouched for, even if the settings were put back; restore them and delegate again; nothing was recorded`,
    );
  }
  return { ok: true };
};
