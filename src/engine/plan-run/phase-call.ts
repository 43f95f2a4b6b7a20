import { mkdirSync, rmSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import type { Route } from "../../agents/index.js";
import type { Phase } from "../../plan/index.js";
import type { DelegationContext, RunnerEvent, RunOutcome, SandboxPolicy } from "../../runners/index.js";
import { ARTIFACT_DIRS, phaseMetadataFile, phaseSummaryFile } from "../../shared/baton-paths.js";
import { type GitBaseline, storePrefix, taskTypeOf } from "../../state/index.js";
import type { ChangeEvidence, CheckRun, Gate, ReturnMetadata } from "../gate-out/index.js";
import {
  checkArtifacts,
  checkStatus,
  checksFor,
  GATE_OUT,
  type GateOutVerdict,
  OPERATION_ONLY_GATES,
  runGateOut,
} from "../gate-out/index.js";
import { checkPhaseStatus, checkPhaseSummary, fileDigest, reportedRemaining } from "./phase-barrier.js";
import type { PhaseOutcome, PlanRunInput } from "./plan-run-types.js";

/**
 * The hard barrier after one call of a phase agent: GATE OUT's gates in GATE OUT's order, less those that judge
 * a whole operation, with the phase's status and summary checks in place of the operation's.
 */
const PHASE_SUBSTITUTES = new Map<Gate, Gate>([
  [checkStatus, checkPhaseStatus],
  [checkArtifacts, checkPhaseSummary],
]);
export const PHASE_BARRIER: readonly Gate[] = GATE_OUT.filter((gate) => !OPERATION_ONLY_GATES.has(gate)).map(
  (gate) => PHASE_SUBSTITUTES.get(gate) ?? gate,
);

/** Where a phase's summary is, relative to its task folder. */
export function phaseSummaryPath(id: string): string {
  return join(ARTIFACT_DIRS.summary, phaseSummaryFile(id));
}

export function phaseMetadataName(id: string): string {
  return phaseMetadataFile(id);
}

/**
 * What differs from one call of a phase agent to the next; the plan run (PlanRunInput) holds the rest, as
 * opencode's `execute(args, ctx)` keeps a tool's arguments apart from the session it runs in.
 */
export interface PhaseAttempt {
  phase: Phase;
  iteration: number;
  continuation: string | null;
  route: Route;
  /** Where the agent works: the repository root, or the phase's worktree. */
  workRoot: string;
  /**
   * The tree as the phase's first call found it: every iteration's work is judged against it, so an
   * iteration that only had to fix a check still counts the phase's earlier changes.
   */
  baseline: GitBaseline | null;
  /** The OS sandbox the phase's agent runs in; none with `--sandbox off`. */
  sandbox: SandboxPolicy | undefined;
  signal: AbortSignal;
  onEvent: (event: RunnerEvent) => void;
}

/** One call of a phase: the plan run it belongs to, and this attempt. */
interface PhaseCall {
  planRun: PlanRunInput;
  attempt: PhaseAttempt;
  /** The phase's own section of the plan, as the plan states it. */
  section: string;
  /** The task folder relative to the repository root (the same inside a worktree). */
  taskFolder: string;
  minSummaryBytes: number;
}

export interface PhaseCallResult {
  /** What the barrier established about an accepted call: the diff and the checks, for the evidence. */
  evidence?: { changes?: ChangeEvidence | undefined; checkRuns?: CheckRun[] | undefined };
  outcome: PhaseOutcome;
  metadata: ReturnMetadata | null;
  /** Absolute path of the summary in the tree the agent worked in. */
  summaryPath: string;
  usage: RunOutcome["usage"];
}

const REFUSED_AS_BLOCKED = new Set(["AGENT_BLOCKED"]);
/** Refusals of work the agent can put right: the next iteration gets the reason. */
const RETRIED = new Set(["CHECK_FAILED", "NO_TESTS_RAN", "TESTS_REDUCED", "TESTS_SKIPPED"]);

function phasePrompt(call: PhaseCall, context: DelegationContext): string {
  const { phase, iteration, continuation } = call.attempt;
  const lines = [
    `Baton delegates Phase ${phase.id} of the plan of task ${context.task_context.task_number} to you.`,
    "",
    `Task ${context.task_context.task_number}: ${call.planRun.run.title}`,
    `Plan: ${context.plan_path ?? "(none)"}`,
    `Phase ${phase.id}: ${phase.name} (iteration ${iteration})`,
  ];
  if (continuation) {
    lines.push("", "From the previous iteration of this phase:", continuation);
  }
  lines.push(
    "",
    "The phase, as the plan states it:",
    "",
    call.section.trimEnd(),
    "",
    "Do this phase only: other phases are delegated to other agents, some at the same time.",
    "Do not edit the plan's markers, checkboxes or Status line, state.json or TODO.md: Baton does.",
    `Write the phase summary (at least ${call.minSummaryBytes} bytes, new for this call) to: ${context.phase?.summary_path}`,
    `Write the return metadata, last, to: ${context.metadata_file_path}`,
    'Status "implemented" when the phase is done; "partial" with work_remaining when it is not;',
    '"blocked" or "failed" with a summary saying why. List the files you changed in files_changed.',
    "",
    "Delegation context (JSON):",
    JSON.stringify(context, null, 2),
  );
  return lines.join("\n");
}

/** Where one call of a phase writes, and the context it is told: new for every call. */
function phaseCallSetup(call: PhaseCall) {
  const { phase, workRoot, iteration, continuation } = call.attempt;
  const folder = join(workRoot, call.taskFolder);
  const summaryPath = join(folder, phaseSummaryPath(phase.id));
  const metadataPath = join(folder, phaseMetadataName(phase.id));
  mkdirSync(dirname(summaryPath), { recursive: true });
  // A metadata file from an earlier call must never pass as this call's result.
  rmSync(metadataPath, { force: true });
  const context: DelegationContext = {
    ...call.planRun.baseContext,
    metadata_file_path: relative(workRoot, metadataPath),
    artifact_path: relative(workRoot, summaryPath),
    iteration,
    phase: {
      id: phase.id,
      name: phase.name,
      dependencies: phase.dependencies,
      summary_path: relative(workRoot, summaryPath),
    },
  };
  if (continuation) context.continuation_context = continuation;
  return { folder, summaryPath, metadataPath, context, summaryDigestBefore: fileDigest(summaryPath) };
}

/** The hard barrier's verdict as the phase scheduler reads it. */
function barrierOutcome(verdict: GateOutVerdict): { outcome: PhaseOutcome; metadata: ReturnMetadata | null } {
  if (!verdict.ok && RETRIED.has(verdict.code)) {
    // The work is there but breaks the project's checks, or changed them: the next iteration gets the
    // failure to fix (and the tests to put back).
    return { outcome: { kind: "retry", code: verdict.code, message: verdict.message }, metadata: null };
  }
  if (!verdict.ok) {
    const kind = REFUSED_AS_BLOCKED.has(verdict.code) ? "blocked" : "failed";
    return { outcome: { kind, code: verdict.code, message: verdict.message }, metadata: null };
  }
  if (verdict.metadata.status === "partial") {
    const remaining = reportedRemaining(verdict.metadata) ?? "";
    return { outcome: { kind: "remaining", remaining }, metadata: verdict.metadata };
  }
  return { outcome: { kind: "complete" }, metadata: verdict.metadata };
}

/** One call of a phase agent, through the runner and the hard barrier. Never throws for agent behaviour. */
export async function callPhase(planRun: PlanRunInput, attempt: PhaseAttempt): Promise<PhaseCallResult> {
  const { run } = planRun;
  const { phase, workRoot } = attempt;
  const call: PhaseCall = {
    planRun,
    attempt,
    section: run.plan.lines.slice(phase.line - 1, phase.endLine).join("\n"),
    taskFolder: relative(run.config.root, run.folder),
    minSummaryBytes: run.config.phases.minSummaryBytes,
  };
  const { folder, summaryPath, metadataPath, context, summaryDigestBefore } = phaseCallSetup(call);
  const outcome = await planRun.runner.run(
    { context, prompt: phasePrompt(call, context), cwd: workRoot, agent: attempt.route.agent },
    {
      signal: attempt.signal,
      timeoutMs: run.config.timeoutsMs.implement,
      onEvent: attempt.onEvent,
      sandbox: attempt.sandbox,
    },
  );
  if (!outcome.ok) {
    // The agent's own account of why it stopped says more than an exit code.
    const signal = outcome.output.split("\n").find((line) => /^\s*TASK_ERROR:/.test(line));
    const message = signal ? `${outcome.message}; ${signal.trim()}` : outcome.message;
    const failed: PhaseOutcome = { kind: "failed", code: `RUNNER_${outcome.reason.toUpperCase()}`, message };
    return { outcome: failed, metadata: null, summaryPath, usage: outcome.usage };
  }
  const verdict = await runGateOut(
    {
      operation: "implement",
      sessionId: run.sessionId,
      repoRoot: workRoot,
      taskFolder: folder,
      metadataPath,
      agentOutput: outcome.output,
      baseline: attempt.baseline,
      storePrefix: storePrefix(run.config.root, run.ctx.paths.dir),
      phase: { id: phase.id, summaryPath, summaryDigestBefore, minSummaryBytes: call.minSummaryBytes },
      expected: {
        minArtifactBytes: call.minSummaryBytes,
        checks: checksFor(run.config, taskTypeOf(run.task) ?? run.config.defaultLanguage, "phase"),
        plannedChanges: call.section,
        // In the shared tree, Baton's sandbox keeps git's folder read-only to the phase's agent; a worktree's
        // own git files are its, so there every change of history is still refused.
        gitReadOnly: attempt.sandbox !== undefined && isMainTree(workRoot),
      },
    },
    PHASE_BARRIER,
  );
  const result: PhaseCallResult = { ...barrierOutcome(verdict), summaryPath, usage: outcome.usage };
  if (verdict.ok && result.outcome.kind === "complete") {
    result.evidence = { changes: verdict.changes, checkRuns: verdict.checkRuns };
  }
  return result;
}

/** A repository's main work tree (its `.git` a folder), not a linked worktree (its `.git` a file). */
function isMainTree(root: string): boolean {
  try {
    return statSync(join(root, ".git")).isDirectory();
  } catch {
    return false;
  }
}
