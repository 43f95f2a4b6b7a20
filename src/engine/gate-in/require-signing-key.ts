import { signingKey } from "../../evidence/index.js";
import type { GateInStep } from "./gate-in-step.js";

/** The result's evidence is signed when it is recorded: a key that cannot be made refuses before any agent is paid. */
export const requireSigningKey: GateInStep = () => {
  try {
    signingKey();
    return { ok: true };
  } catch (error) {
    return { ok: false, message: (error as Error).message };
  }
};
