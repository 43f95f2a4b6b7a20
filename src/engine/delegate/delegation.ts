import type { SandboxMode } from "../../config/index.js";
import type { RunUsage } from "../../runners/index.js";
import type { GateOutVerdict } from "../gate-out/index.js";
import type { Run } from "../run/index.js";
import { openPostflight } from "../run/index.js";
import type { RunEvent } from "../transition.js";

/** DELEGATE begins: the run's postflight marker names who owes the result, and why it is pending. */
export function openRunMarker(run: Run, reason: string): Promise<string> {
  return openPostflight(run.ctx, run.folder, {
    sessionId: run.sessionId,
    agent: run.route.agent.name,
    taskNumber: run.taskNumber,
    operation: run.operation,
    reason,
    claudeSessionId: run.claudeSessionId,
  });
}

/**
 * What differs between a headless run, a live session and a queued run: who performs DELEGATE and
 * what GATE OUT checks the result against. Everything else — the store steps, the journal, the commit —
 * is the executor's, the same for all of them.
 */
export interface Delegation {
  /** Runs the agent and reports how it ended; null hands DELEGATE to someone else (the run pauses there). */
  delegate(run: Run, artifactPath: string): Promise<RunEvent | null>;
  check(run: Run, agentOutput: string, artifactPath: string): Promise<GateOutVerdict>;
  /** A plan run knows the first incomplete phase itself (phase numbers may skip). */
  resumePhase?(): number | undefined;
  /** Appended to a partial commit subject, e.g. "(3 of 4 phases)". */
  partialDetail?(): string | undefined;
  /** What the agent reported it used, for the evidence. */
  usage?: RunUsage | undefined;
  /** Where the agent runs, for the evidence: Baton's sandbox, none on purpose, or a live session's host. */
  sandbox(run: Run): SandboxMode | "session";
}
