import type { GateOperation } from "./types.js";
import { type Gate, refuse } from "./types.js";

/** The agent statuses that finish each operation; `partial` is accepted everywhere as resumable. */
export const DONE_STATUS: Record<GateOperation, string> = {
  research: "researched",
  plan: "planned",
  implement: "implemented",
  revise: "planned",
};

/** The metadata must come from this run (session id) and report a status this operation may end with. */
export const checkSessionAndStatus: Gate = (ctx) => {
  const meta = ctx.metadata!;
  if (meta.metadata.session_id !== ctx.sessionId) {
    return refuse(
      ctx,
      "META_SESSION_MISMATCH",
      `the metadata belongs to session ${meta.metadata.session_id || "(empty)"}, not to this run (${ctx.sessionId}); it is stale or copied`,
    );
  }
  const status = meta.status;
  if (status === "completed") {
    return refuse(
      ctx,
      "META_STATUS_COMPLETED",
      'the agent reported "completed"; agents report their result, Baton completes tasks',
    );
  }
  if (status === "in_progress") {
    return refuse(
      ctx,
      "META_STATUS_IN_PROGRESS",
      "the agent stopped while its metadata still says in_progress",
    );
  }
  if (status === "failed") return refuse(ctx, "AGENT_FAILED", `the agent reported failure: ${meta.summary}`);
  if (status === "blocked") return refuse(ctx, "AGENT_BLOCKED", `the agent is blocked: ${meta.summary}`);
  if (status !== DONE_STATUS[ctx.operation] && status !== "partial") {
    return refuse(
      ctx,
      "META_STATUS_NOT_ALLOWED",
      `status "${status}" cannot end ${ctx.operation}; expected "${DONE_STATUS[ctx.operation]}" or "partial"`,
    );
  }
  if (
    ctx.operation === "implement" &&
    status === "implemented" &&
    !meta.completion_data?.completion_summary
  ) {
    return refuse(ctx, "META_SCHEMA", "an implemented result needs completion_data.completion_summary");
  }
  return { ok: true };
};
