import { staleIndexLock } from "../run/index.js";
import type { GateInStep } from "./gate-in-step.js";

/** A stale index.lock makes every later commit fail: refuse before an agent is paid to work. */
export const refuseStaleIndexLock: GateInStep = async ({ run }) => {
  const lock = run.config.commit ? await staleIndexLock(run.config.root) : null;
  if (!lock) return { ok: true };
  return {
    ok: false,
    message: `${lock} exists: a git process was killed mid-commit, and every commit would fail; remove it if no git process is running`,
  };
};
