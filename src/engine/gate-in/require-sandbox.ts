import { probeSandbox } from "../../runners/index.js";
import type { GateInStep } from "./gate-in-step.js";

/**
 * A headless run starts its agent in an OS sandbox; when the sandbox cannot run here, the run does not
 * start (no agent is paid to work unguarded) unless it was told `--sandbox off` on purpose.
 */
export const requireSandbox: GateInStep = ({ run }) => {
  if (run.mode !== "headless" || run.config.sandbox === "off") return { ok: true };
  const probe = probeSandbox();
  if (probe.ok) return { ok: true };
  return { ok: false, message: `the agent's sandbox cannot start: ${probe.reason}; ${probe.fix}` };
};
