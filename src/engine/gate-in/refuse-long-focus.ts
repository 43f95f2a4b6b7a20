import type { GateInStep } from "./gate-in-step.js";

/**
 * The most a focus may hold, in bytes (docs/commands.md). The prompt carrying it goes to the agent on stdin,
 * but the focus is also the agent's `BATON_FOCUS` variable, and one environment string over 128 KiB makes
 * the agent's spawn fail (E2BIG) after GATE IN has already opened the run.
 */
export const MAX_FOCUS_BYTES = 64 * 1024;

/** A focus past the limit is refused before anything is written: long context belongs in a file the agent reads. */
export const refuseLongFocus: GateInStep = ({ run }) => {
  const bytes = run.focus === null ? 0 : Buffer.byteLength(run.focus, "utf8");
  if (bytes <= MAX_FOCUS_BYTES) return { ok: true };
  return {
    ok: false,
    message: `the focus is ${bytes} bytes, over the limit of ${MAX_FOCUS_BYTES} (64 KiB): put the long text in a file in the repository and name that file in the focus`,
  };
};
