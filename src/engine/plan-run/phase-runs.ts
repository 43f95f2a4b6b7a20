import { readFileSync, rmSync } from "node:fs";
import { join, relative } from "node:path";
import type { Route } from "../../agents/index.js";
import { approvalStanding } from "../../approvals/index.js";
import type { PhaseId } from "../../plan/index.js";
import { setPhaseMarker } from "../../plan/index.js";
import { addUsage, type RunnerEvent, type RunUsage } from "../../runners/index.js";
import { type GitBaseline, mutateStore } from "../../state/index.js";
import type { VerifiedArtifact } from "../gate-out/index.js";
import { readBaseline, runSandbox } from "../run/index.js";
import { callPhase, type PhaseCallResult, phaseMetadataName, phaseSummaryPath } from "./phase-call.js";
import type { PhaseOutcome, PhaseVerdict } from "./phase-transition.js";
import { createPhaseWorktree, headSha, type PhaseWorktree } from "./phase-worktree.js";
import type { PhaseReport, PlanRunInput, PlanRunReport } from "./plan-run-types.js";
import { type PhaseEvidence, recordPhase } from "./record-phase.js";

/**
 * [IN PROGRESS] markers for phases that start together, written in one store write: a wave's phases
 * start in the same tick, and one write per phase would queue them behind the lock one by one.
 */
function markerBatch(input: PlanRunInput): (id: PhaseId) => Promise<void> {
  const { run } = input;
  let pending: { ids: PhaseId[]; done: Promise<void> } | null = null;
  return (id) => {
    if (!pending) {
      const batch: { ids: PhaseId[]; done: Promise<void> } = { ids: [], done: Promise.resolve() };
      batch.done = new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
        pending = null;
        return mutateStore(run.ctx, { command: `baton implement ${run.taskNumber}` }, (tx) => {
          let text = readFileSync(run.plan.planPath, "utf8");
          for (const phaseId of batch.ids) {
            const edited = setPhaseMarker(text, phaseId, "IN PROGRESS");
            if (edited.ok) text = edited.text;
          }
          tx.writeFile(run.plan.planPath, text);
        });
      });
      pending = batch;
    }
    pending.ids.push(id);
    return pending.done;
  };
}

/**
 * The phases of one plan run as they are called and recorded: each phase's worktree and baseline (taken
 * at its first call), the files and evidence its calls reported, and what the run report says of it.
 */
export class PhaseRuns {
  private readonly waveOf = new Map<PhaseId, number>();
  private readonly reports = new Map<PhaseId, PhaseReport>();
  private readonly worktrees = new Map<PhaseId, PhaseWorktree>();
  private readonly baselines = new Map<PhaseId, GitBaseline | null>();
  private readonly filesChanged = new Map<PhaseId, string[]>();
  private readonly evidence = new Map<PhaseId, PhaseEvidence>();
  private readonly summaries: VerifiedArtifact[] = [];
  private readonly completionSummaries: string[] = [];
  private usage: RunUsage | undefined;
  private readonly markStarted: (id: PhaseId) => Promise<void>;

  constructor(private readonly input: PlanRunInput) {
    const prepared = input.run.plan;
    prepared.waves.forEach((ids, k) => {
      for (const id of ids) this.waveOf.set(id, k);
    });
    for (const phase of prepared.plan.phases) {
      if (this.reports.has(phase.id)) continue;
      const route = prepared.routes.get(phase.id);
      this.reports.set(phase.id, {
        id: phase.id,
        name: phase.name,
        wave: this.waveOf.get(phase.id) ?? 0,
        agent: route?.agent.name ?? null,
        routeReason: route ? `${prepared.routeReasons.get(phase.id)}; ${route.reason}` : null,
        state: prepared.settled.has(phase.id) ? "settled" : "not_run",
      });
    }
    this.markStarted = markerBatch(input);
  }

  report(): Omit<PlanRunReport, "outcome" | "waves"> {
    return {
      phases: [...this.reports.values()],
      summaries: this.summaries,
      completionSummaries: this.completionSummaries,
      usage: this.usage,
    };
  }

  private phase(id: PhaseId) {
    return this.input.run.plan.plan.phases.find((p) => p.id === id && !p.carried)!;
  }

  private workRoot(id: PhaseId): string {
    return this.worktrees.get(id)?.path ?? this.input.run.config.root;
  }

  /**
   * A phase's first call: journaled first (recovery reads it), its marker written while the agent starts,
   * its worktree made and its baseline taken. Returns a failure when the worktree cannot be made.
   */
  private async firstCall(id: PhaseId): Promise<{ marked: Promise<void> } | PhaseOutcome> {
    const { run, journal, isolate } = this.input;
    // The plan may not change under an approval while it runs (an agent's edit, a person's): no phase starts.
    const standing = approvalStanding(run.config, run.task, run.folder);
    if (standing.kind === "stale") {
      const message = `the plan changed after its approval, while it ran: ${standing.plan.path}; \`baton approve ${run.taskNumber}\` again before the rest runs`;
      return { kind: "failed", code: "APPROVAL_STALE", message };
    }
    // Recovery reads whether the phase's agent wrote in the shared tree (put-aside.ts).
    const worktree = isolate === "worktree" ? { worktree: true } : {};
    journal.begin("PHASE", { phase: id, previousMarker: this.phase(id).marker, ...worktree });
    const marked = this.markStarted(id);
    if (isolate === "worktree") {
      const created = await createPhaseWorktree({
        root: run.config.root,
        sessionId: run.sessionId,
        phaseId: id,
        base: await headSha(run.config.root),
      });
      if (!created.ok) return { kind: "failed", code: "WORKTREE_CREATE", message: created.reason };
      this.worktrees.set(id, created.worktree);
    }
    this.baselines.set(id, await readBaseline(this.workRoot(id), { settings: true }));
    return { marked };
  }

  /** One call of a phase agent, behind the hard barrier; the budget may stop it mid-way. */
  async call(id: PhaseId, iteration: number, continuation: string | null): Promise<PhaseOutcome> {
    const { run, emit } = this.input;
    let marked: Promise<void> = Promise.resolve();
    if (iteration === 1) {
      const first = await this.firstCall(id);
      if ("kind" in first) return first;
      marked = first.marked;
    }
    const route = run.plan.routes.get(id) as Route;
    const phase = this.phase(id);
    emit({
      type: "phase_started",
      id,
      name: phase.name,
      wave: this.waveOf.get(id) ?? 0,
      iteration,
      agent: route.agent.name,
    });
    const overBudget = new AbortController();
    const result = await this.callAgent(id, iteration, continuation, route, overBudget);
    await marked;
    this.usage = addUsage(this.usage, result.usage);
    this.input.budget?.finished(`${id}#${iteration}`, result.usage);
    // Stopped by the budget mid-way: not a failure of the phase, which the next run picks up again.
    if (overBudget.signal.aborted && !this.input.signal.aborted) {
      return {
        kind: "remaining",
        remaining: `stopped by the budget: ${this.input.budget?.stopped?.message ?? ""}`,
      };
    }
    this.keep(id, route, result);
    return result.outcome;
  }

  private async callAgent(
    id: PhaseId,
    iteration: number,
    continuation: string | null,
    route: Route,
    overBudget: AbortController,
  ): Promise<PhaseCallResult> {
    const { run, budget, journal, emit, signal } = this.input;
    const key = `${id}#${iteration}`;
    return callPhase(this.input, {
      phase: this.phase(id),
      iteration,
      continuation,
      route,
      workRoot: this.workRoot(id),
      baseline: this.baselines.get(id) ?? null,
      sandbox: await runSandbox(run, this.workRoot(id)),
      signal: budget?.active ? AbortSignal.any([signal, overBudget.signal]) : signal,
      onEvent: (event: RunnerEvent) => {
        if (event.type === "usage" && budget?.onUsage(key, event.usage)) overBudget.abort();
        if (event.type === "started") {
          journal.append({ step: "AGENT", phase: "begin", detail: { agentPid: event.pid, phase: id } });
        } else if (event.type === "finished") {
          journal.append({ step: "AGENT", phase: "end", ok: event.ok, detail: { phase: id } });
        }
        emit({ type: "phase_runner", id, event });
      },
    });
  }

  /** What an accepted call reported: the files it changed, its evidence, its completion summary. */
  private keep(id: PhaseId, route: Route, result: PhaseCallResult): void {
    if (result.metadata?.files_changed) {
      const files = [...(this.filesChanged.get(id) ?? []), ...result.metadata.files_changed];
      this.filesChanged.set(id, [...new Set(files)]);
    }
    if (result.evidence) {
      const base = this.baselines.get(id)?.commit ?? null;
      const sandbox = this.input.run.config.sandbox;
      this.evidence.set(id, { ...result.evidence, base, agent: route.agent.name, sandbox });
    }
    const completion = result.metadata?.completion_data?.completion_summary;
    if (result.outcome.kind === "complete" && completion)
      this.completionSummaries.push(`Phase ${id}: ${completion}`);
  }

  /** The verdict recorded: marker, checkboxes, commit; the summary linked; the report updated. */
  async record(id: PhaseId, verdict: PhaseVerdict): Promise<PhaseVerdict> {
    const { run, journal, emit } = this.input;
    const phase = this.phase(id);
    const taskFolder = relative(run.config.root, run.folder);
    const done = await recordPhase(
      {
        ctx: run.ctx,
        root: run.config.root,
        plan: run.plan.plan,
        planPath: run.plan.planPath,
        taskFolder,
        taskNumber: run.taskNumber,
        sessionId: run.sessionId,
        delegationPath: run.delegationPath,
        commit: this.input.commit,
      },
      id,
      verdict,
      {
        filesChanged: this.filesChanged.get(id) ?? [],
        evidence: this.evidence.get(id),
        worktree: this.worktrees.get(id) ?? null,
        previousMarker: phase.marker,
      },
    );
    rmSync(join(run.config.root, taskFolder, phaseMetadataName(id)), { force: true });
    if (done.verdict.kind === "complete") this.linkSummary(id, phase.name);
    if (verdict.kind !== "dependency_blocked") {
      const detail = { phase: id, verdict: done.verdict.kind, marker: done.marker };
      journal.end("PHASE", done.verdict.kind === "complete", detail);
    }
    const report = this.reports.get(id)!;
    report.state = "recorded";
    report.record = done;
    emit({ type: "phase_recorded", id, name: phase.name, wave: this.waveOf.get(id) ?? 0, record: done });
    return done.verdict;
  }

  private linkSummary(id: PhaseId, name: string): void {
    const { run } = this.input;
    const summary = join(run.folder, phaseSummaryPath(id));
    let bytes = 0;
    try {
      bytes = readFileSync(summary).length;
    } catch {
      // a summary that vanished after the barrier is simply not linked
    }
    if (bytes > 0) {
      this.summaries.push({
        type: "summary",
        path: relative(run.config.root, summary),
        bytes,
        summary: `Phase ${id}: ${name}`,
      });
    }
  }
}
