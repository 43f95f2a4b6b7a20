import { AGENT_RETURN } from "../../shared/operation-names.js";
import { type Gate, refuse } from "./gate-types.js";

/** The metadata must come from this run: a stale or copied file names another session. */
export const checkSession: Gate = (ctx) => {
  const meta = ctx.metadata!;
  if (meta.metadata.session_id !== ctx.sessionId) {
    return refuse(
      ctx,
      "META_SESSION_MISMATCH",
      `the metadata belongs to session ${meta.metadata.session_id || "(empty)"}, not to this run (${ctx.sessionId}); it is stale or copied`,
    );
  }
  return { ok: true };
};

/** Statuses no run may end with, and the agent's own failure reports, shared by operations and phases. */
export const refuseUnfinishedStatus: Gate = (ctx) => {
  const meta = ctx.metadata!;
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
  return { ok: true };
};

/** The status must be one this operation may end with. */
export const checkStatus: Gate = (ctx) => {
  const meta = ctx.metadata!;
  const status = meta.status;
  const done = AGENT_RETURN[ctx.operation].status;
  if (status !== done && status !== "partial") {
    return refuse(
      ctx,
      "META_STATUS_NOT_ALLOWED",
      `status "${status}" cannot end ${ctx.operation}; expected "${done}" or "partial"`,
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
