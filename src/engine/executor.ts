import type { RunnerEvent, RunUsage } from "../runners/index.js";
import { type HeldStore, holdStore, mutateStore, readOpenCheckpoint, requireTask } from "../state/index.js";
import { commitOperation } from "./commit-step.js";
import { writeEvidence } from "./evidence.js";
import type { GateOutVerdict } from "./gate-out.js";
import { readBaseline, staleIndexLock } from "./git-baseline.js";
import { type Effect, type RunEvent, type RunState, transition } from "./machine.js";
import type { PlanProgressEvent } from "./phases/run.js";
import { closePostflight } from "./postflight-marker.js";
import { plannedArtifact } from "./prompt.js";
import type { Run } from "./run.js";
import type { SessionJournal } from "./session-journal.js";
import { closeCheckpoint, gateIn, recordFailure, recordResult } from "./store-steps.js";

export type ProgressEvent =
  | {
      type: "checkpoint";
      step: string;
      phase: "begin" | "end";
      ok?: boolean;
      /** A refusal's code and message. */
      code?: string;
      message?: string;
    }
  | { type: "runner"; event: RunnerEvent }
  | { type: "plan"; event: PlanProgressEvent };

/**
 * What differs between a headless run and a live session: who performs DELEGATE and what GATE OUT
 * checks the result against. Everything else — the store steps, the journal, the commit — is the
 * executor's, the same for both.
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
}

export interface RunIO {
  journal: SessionJournal;
  emit?: ((event: ProgressEvent) => void) | undefined;
  commit: boolean;
}

export interface Driven {
  state: RunState;
  /** Where GATE IN planned the artifact ("" when the drive started after GATE IN). */
  artifactPath: string;
  /** The task's status right after the last store write of the drive. */
  status: string | undefined;
  verdict?: Extract<GateOutVerdict, { ok: true }>;
}

/**
 * The one executor of the checkpoint machine: performs each effect `transition` asks for and feeds
 * back what happened. A headless run drives it from the start; an in-session gate-in drives it until
 * DELEGATE is handed to the model, and gate-out drives it on from the agent's end. The store lock is
 * held from the result's record to its commit, so no other writer's change lands under this run's
 * Session trailer.
 */
export async function drive(
  run: Run,
  io: RunIO,
  delegation: Delegation,
  start: { state: RunState; event: RunEvent },
): Promise<Driven> {
  const command = `baton ${run.mode === "session" ? "gate " : ""}${run.operation} ${run.taskNumber}`;
  const commitWanted = Boolean(io.commit) && run.config.commit;
  const driven: Driven = { state: start.state, artifactPath: "", status: undefined };
  let held: HeldStore | undefined;

  async function perform(effect: Effect): Promise<RunEvent | null> {
    switch (effect.type) {
      case "journal": {
        const detail =
          effect.step === "GATE_IN" && effect.phase === "begin"
            ? { mode: run.mode, ...(run.claudeSessionId ? { claudeSession: run.claudeSessionId } : {}) }
            : effect.detail;
        if (effect.phase === "begin") io.journal.begin(effect.step, detail);
        else io.journal.end(effect.step, effect.ok ?? false, detail);
        const refusal =
          effect.ok === false
            ? (effect.detail as { code?: unknown; message?: unknown } | undefined)
            : undefined;
        io.emit?.({
          type: "checkpoint",
          step: effect.step,
          phase: effect.phase,
          ...(effect.ok === undefined ? {} : { ok: effect.ok }),
          ...(typeof refusal?.code === "string" ? { code: refusal.code } : {}),
          ...(typeof refusal?.message === "string" ? { message: refusal.message } : {}),
        });
        return null;
      }
      case "gate_in": {
        // A stale index.lock makes every later commit fail: refuse before an agent is paid to work.
        const lock = run.config.commit ? await staleIndexLock(run.config.root) : null;
        if (lock) {
          return {
            type: "gate_in_refused",
            message: `${lock} exists: a git process was killed mid-commit, and every commit would fail; remove it if no git process is running`,
          };
        }
        const baseline = await readBaseline(run.config.root);
        const verdict = await mutateStore(run.ctx, { command }, (tx) => {
          const result = gateIn(tx, {
            baseline,
            taskNumber: run.taskNumber,
            operation: run.operation,
            sessionId: run.sessionId,
            force: run.force,
            mode: run.mode,
            claudeSessionId: run.claudeSessionId,
            agent: run.route.agent.name,
          });
          if (result.ok) {
            const task = requireTask(tx, run.taskNumber);
            driven.status = task.status;
            driven.artifactPath = plannedArtifact(
              run.config,
              run.ctx.paths.dir,
              task,
              run.operation,
            ).recordedPath;
          }
          return result;
        });
        return verdict.ok ? { type: "gate_in_passed" } : { type: "gate_in_refused", message: verdict.reason };
      }
      case "run_agent":
        return delegation.delegate(run, driven.artifactPath);
      case "check_result":
        return {
          type: "gate_out_checked",
          verdict: await delegation.check(run, effect.output, driven.artifactPath),
        };
      case "record_result": {
        driven.verdict = effect.verdict;
        held = await holdStore(run.ctx, command);
        const resumePhase = delegation.resumePhase?.();
        driven.status = await held.mutate({}, (tx) => {
          const open = readOpenCheckpoint(run.ctx.paths.internalDir, run.taskNumber);
          const from = open?.previousStatus ?? requireTask(tx, run.taskNumber).status;
          recordResult(tx, {
            taskNumber: run.taskNumber,
            operation: run.operation,
            outcome: effect.verdict.outcome,
            metadata: effect.verdict.metadata,
            artifacts: effect.verdict.artifacts,
            ...(resumePhase === undefined ? {} : { resumePhase }),
            commitPending: commitWanted ? open : null,
          });
          // Control files: their content is now in state.json, and they are never committed.
          closePostflight(tx, run.folder, { metadata: true });
          const to = requireTask(tx, run.taskNumber).status;
          writeEvidence(tx, {
            root: run.config.root,
            folder: run.folder,
            session: run.sessionId,
            task: run.taskNumber,
            operation: run.operation,
            agent: run.route.agent.name,
            base: open?.baseline?.commit ?? null,
            from,
            to,
            outcome: effect.verdict.outcome,
            artifacts: effect.verdict.artifacts,
            changes: effect.verdict.changes,
            checks: effect.verdict.checkRuns,
            usage: delegation.usage,
          });
          return to;
        });
        return { type: "recorded" };
      }
      case "record_failure":
        driven.status = await mutateStore(run.ctx, { command }, (tx) => {
          recordFailure(tx, {
            taskNumber: run.taskNumber,
            operation: run.operation,
            sessionId: run.sessionId,
            checkpoint: effect.checkpoint,
            code: effect.code,
            message: effect.message,
            delegationPath: run.delegationPath,
          });
          closePostflight(tx, run.folder, { metadata: false });
          return requireTask(tx, run.taskNumber).status;
        });
        return null;
      case "commit": {
        try {
          if (!commitWanted) return { type: "commit_finished", committed: false, error: "commit disabled" };
          held ??= await holdStore(run.ctx, command);
          const result = await commitOperation({
            store: held,
            ctx: run.ctx,
            operation: run.operation,
            taskNumber: run.taskNumber,
            folder: run.folder,
            outcome: effect.outcome,
            sessionId: run.sessionId,
            delegationPath: run.delegationPath,
            partialDetail: delegation.partialDetail?.(),
            files: committedFiles(driven.verdict),
          });
          // The record and its commit are both in: only now does the checkpoint close.
          if (!result.failed) await held.mutate({}, (tx) => closeCheckpoint(tx, run.taskNumber));
          return { type: "commit_finished", ...result };
        } finally {
          held?.release();
        }
      }
    }
  }

  try {
    let state = start.state;
    const queue: RunEvent[] = [start.event];
    while (queue.length > 0) {
      const [next, effects] = transition(state, queue.shift()!);
      state = next;
      for (const effect of effects) {
        const event = await perform(effect);
        if (event) queue.push(event);
      }
    }
    driven.state = state;
    return driven;
  } finally {
    held?.release();
  }
}

/**
 * The work files an operation's commit carries besides the task folder: an implementation's listed
 * files_changed, each verified by GATE OUT to have changed (a plan run committed them phase by phase).
 */
function committedFiles(verdict: Driven["verdict"]): string[] {
  const changes = verdict?.changes;
  if (!changes) return [];
  return changes.files.filter((f) => !changes.unlisted.includes(f));
}
