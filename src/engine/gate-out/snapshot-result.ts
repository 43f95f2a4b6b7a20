import { join, relative } from "node:path";
import type { Gate } from "./gate-types.js";
import { agentChanged, snapshotWork, workPathspecs } from "./result-snapshot.js";

/**
 * The last gate: the accepted result as the agent left it, hashed into git's object store — the task
 * folder and the verified files it changed. COMMIT commits these bytes and names whatever differs later.
 */
export const snapshotResult: Gate = async (ctx) => {
  const changes = ctx.changes;
  const files = changes ? changes.files.filter((f) => !changes.unlisted.includes(f)) : [];
  const work = { paths: files.map((f) => join(ctx.repoRoot, f)), taskFolder: ctx.taskFolder };
  const record = (ctx.artifacts ?? []).map((a) => a.path);
  if (ctx.phase) record.push(relative(ctx.repoRoot, ctx.phase.summaryPath));
  const taken = await snapshotWork(ctx.repoRoot, workPathspecs(ctx.repoRoot, work), record);
  // Outside git there is nothing to commit, and so nothing to snapshot.
  if (taken.ok) ctx.snapshot = agentChanged(ctx.repoRoot, taken.snapshot, ctx.baseline);
  return { ok: true };
};
