import { loadConfig } from "../../config/index.js";
import { installedBin } from "../../init/manifest.js";
import { requireStore, storeContext } from "../../state/index.js";
import { readStatus, type StatusView } from "../../status/index.js";
import { type LearnedConventions, learnedConventions } from "./conventions.js";

/** `baton status`: what runs, what ended, what was refused, what it cost. */
export async function status(options: {
  repo: string;
  recent?: string | undefined;
}): Promise<StatusView & { conventions: LearnedConventions }> {
  const config = await loadConfig(options.repo);
  const ctx = storeContext(config);
  requireStore(ctx);
  const recent = options.recent === undefined ? 10 : Math.max(1, Math.min(50, Number(options.recent) || 10));
  const view = readStatus(config.root, config.specsDir, {
    bin: installedBin(config.root) ?? "baton",
    recent,
  });
  return { ...view, conventions: await learnedConventions(config, ctx) };
}
