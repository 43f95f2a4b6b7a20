import { join, relative, sep } from "node:path";
import { hashFile } from "../../state/index.js";
import { type Gate, refuse } from "./gate-types.js";

/**
 * In-session GATE OUT: the result must be the delegated sub-agent's work. The hooks recorded who
 * changed each file of the task folder while the checkpoint was open (the delegation log); the agent
 * Baton named must have run, and every artifact and the metadata file, as they are on disk now, must
 * have been written last by that agent — not by the main thread, not by another agent, and not by
 * anything the hooks did not see.
 */
export const checkProvenance: Gate = (ctx) => {
  const p = ctx.provenance;
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
  if (p.view.agentId === undefined) {
    const launched = p.view.launches.length > 0 ? ` (an Agent call named ${p.view.launches.join(", ")})` : "";
    return refuse(
      ctx,
      "AGENT_NOT_RUN",
      `no sub-agent ran for this checkpoint${launched}: Baton delegated it to ${p.agent}, which must write the result itself; nothing was recorded`,
    );
  }
  if (p.view.agentType !== p.agent) {
    return refuse(
      ctx,
      "AGENT_NOT_RUN",
      `the sub-agent that ran was ${p.view.agentType}, not ${p.agent}, the agent Baton delegated to; nothing was recorded`,
    );
  }
  const owner = `agent:${p.view.agentId}`;
  const paths = [...(ctx.artifacts ?? []).map((a) => a.path), relative(ctx.repoRoot, ctx.metadataPath)];
  for (const path of paths.map((x) => x.split(sep).join("/"))) {
    const record = p.view.files.get(path);
    const now = hashFile(join(ctx.repoRoot, path));
    if (!record || record.hash !== now) {
      return refuse(
        ctx,
        "NOT_WRITTEN_BY_AGENT",
        `${path} changed after the last tool call Baton saw (it was not written by ${p.agent} through a tool call); nothing was recorded`,
      );
    }
    if (record.actor !== owner) {
      const who =
        record.actor === "main"
          ? "the main thread"
          : record.actor === "baseline"
            ? "no one in this delegation (it was there at gate-in)"
            : `another agent (${record.actor})`;
      return refuse(
        ctx,
        "NOT_WRITTEN_BY_AGENT",
        `${path} was last written by ${who} (${record.tool}), not by ${p.agent}; delegate the work and let the agent write its result; nothing was recorded`,
      );
    }
  }
  return { ok: true };
};
