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
  const p = ctx.expected.provenance;
  if (!p) return { ok: true };
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
  const mainThreadWork = (ctx.changes?.files ?? []).filter(
    (path) => p.view.files.get(path)?.actor === "main",
  );
  if (mainThreadWork.length > 0) {
    return refuse(
      ctx,
      "NOT_WRITTEN_BY_AGENT",
      `${mainThreadWork.join(", ")} ${mainThreadWork.length === 1 ? "was" : "were"} last changed by the main thread while the checkpoint was open, not by ${p.agent}: the work is the delegated agent's to do; nothing was recorded`,
    );
  }
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
