import { loadConfig } from "../../config/index.js";
// side door: `baton status` must start fast; the init face would load every host installer with it.
import { installedBin } from "../../init/manifest.js";
import { requireStore, storeContext } from "../../state/index.js";
import { readStatus, type StatusView } from "../../status/index.js";
import { listApprovals, type WaitingApproval } from "./approvals.js";
import { type LearnedConventions, learnedConventions } from "./conventions.js";

/** `baton status`: what runs, what ended, what was refused, what it cost. */
export async function status(options: {
  repo: string;
  recent?: string | undefined;
}): Promise<StatusView & { conventions: LearnedConventions; approvals?: WaitingApproval[] }> {
  const config = await loadConfig(options.repo);
  const ctx = storeContext(config);
  requireStore(ctx);
  const recent = options.recent === undefined ? 10 : Math.max(1, Math.min(50, Number(options.recent) || 10));
  const view = readStatus(config.root, config.specsDir, {
    bin: installedBin(config.root) ?? "baton",
    recent,
  });
  // Only where approvals are asked for: the rest of status reads no task file.
  const approvals =
    Object.keys(config.approvals.implement).length > 0
      ? await listApprovals({ repo: config.root })
      : undefined;
  return { ...view, ...(approvals ? { approvals } : {}), conventions: await learnedConventions(config, ctx) };
}
