import type { GateInStep } from "./gate-in-step.js";
import { refuseForeignFolder } from "./refuse-foreign-folder.js";
import { refuseForgedSessionCommit } from "./refuse-forged-session-commit.js";
import { refuseGitOperation } from "./refuse-git-operation.js";
import { refuseLongFocus } from "./refuse-long-focus.js";
import { refuseStaleIndexLock } from "./refuse-stale-index-lock.js";
import { requireApproval } from "./require-approval.js";
import { requireSandbox } from "./require-sandbox.js";
import { requireSigningKey } from "./require-signing-key.js";
import { requireWritable } from "./require-writable.js";
import { takeBaseline } from "./take-baseline.js";

/**
 * GATE IN, in order: the steps before anything is written, then one store write that checks the
 * lifecycle table and the open checkpoint and writes the in-progress status, the session id and the
 * checkpoint together. A new check is a new file and one line here.
 */
export const GATE_IN: readonly GateInStep[] = [
  refuseLongFocus,
  requireApproval,
  requireSandbox,
  requireSigningKey,
  requireWritable,
  refuseStaleIndexLock,
  refuseGitOperation,
  refuseForgedSessionCommit,
  refuseForeignFolder,
  takeBaseline,
];
