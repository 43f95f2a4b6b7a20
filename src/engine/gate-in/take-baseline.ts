import { readBaseline } from "../run/index.js";
import type { GateInStep } from "./gate-in-step.js";

/** The work tree as the agent will find it: HEAD and the files already dirty, kept in the checkpoint. */
export const takeBaseline: GateInStep = async (ctx) => {
  ctx.baseline = await readBaseline(ctx.run.config.root, { settings: ctx.run.mode === "headless" });
  return { ok: true };
};
