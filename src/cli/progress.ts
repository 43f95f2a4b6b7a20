import type { DryRunPlan, OperationReport, ProgressEvent, RecoveryAction } from "../engine/index.js";
import { inert } from "../shared/terminal-text.js";
import { monotonicMs } from "../shared/time.js";
import { PlanBoard } from "./plan-progress.js";

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

function elapsed(since: number): string {
  const s = Math.floor(Math.max(0, monotonicMs() - since) / 1000);
  return `${String(Math.floor(s / 60)).padStart(2, "0")}:${String(s % 60).padStart(2, "0")}`;
}

/**
 * Live progress: on a terminal one redrawn line (checkpoint, elapsed time, the agent's current tool or
 * step); otherwise plain lines, so logs and CI output stay readable.
 */
/** Files a commit left out because they changed after GATE OUT saw them: the user decides what they are. */
export function leftOutLines(leftOut: readonly string[] | undefined): string[] {
  if (!leftOut || leftOut.length === 0) return [];
  return [
    `  left out of the commit (changed after the agent's result was checked, not by the agent): ${leftOut.join(", ")}`,
    "    their bytes as checked are committed; the later change stays in the work tree (git diff shows it)",
  ];
}

export function progressReporter(stream: NodeJS.WriteStream): {
  onProgress: (e: ProgressEvent) => void;
  stop: () => void;
} {
  const reporter = new ProgressReporter(stream);
  return { onProgress: (event) => reporter.handle(event), stop: () => reporter.stop() };
}

class ProgressReporter {
  private readonly started = monotonicMs();
  private readonly tty: boolean;
  private readonly board = new PlanBoard();
  private readonly timer: NodeJS.Timeout | undefined;
  private checkpoint = "GATE_IN";
  private step = "";
  private frame = 0;
  private planActive = false;
  /** Lines of the live block drawn last time, erased before the next draw. */
  private drawn = 0;

  constructor(private readonly stream: NodeJS.WriteStream) {
    this.tty = stream.isTTY === true;
    this.timer = this.tty ? setInterval(() => this.draw(), 100) : undefined;
  }

  handle(event: ProgressEvent): void {
    if (event.type === "checkpoint") this.onCheckpoint(event);
    else if (event.type === "plan") this.onPlan(event.event);
    else if (event.type === "runner") this.onRunner(event.event);
    // A budget's verdict and the run's end are in the report (or the error) printed when the run returns.
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    if (this.tty) this.erase();
  }

  private onCheckpoint(event: Extract<ProgressEvent, { type: "checkpoint" }>): void {
    if (event.phase === "begin") {
      this.checkpoint = event.step;
      this.step = "";
      if (!this.tty) this.line(`[${elapsed(this.started)}] ${event.step} …`);
    } else this.line(`[${elapsed(this.started)}] ${event.step} ${event.ok ? "✓" : "✗"}`);
  }

  private onPlan(event: Extract<ProgressEvent, { type: "plan" }>["event"]): void {
    this.planActive = true;
    const plain = this.board.handle(event);
    // On a terminal the block shows phases live; a finished wave is printed once, for the scrollback.
    if (!this.tty && plain) this.line(`[${elapsed(this.started)}] ${plain}`);
    if (this.tty && event.type === "wave" && event.event === "finished") {
      const finished = this.board.render("").slice(1);
      this.line([`Wave ${event.wave + 1}/${event.total}`, ...finished].join("\n"));
    }
  }

  private onRunner(event: Extract<ProgressEvent, { type: "runner" }>["event"]): void {
    if (event.type === "step") {
      this.step = event.tool ? `${event.tool}: ${event.label}` : event.label;
      if (!this.tty) this.line(`[${elapsed(this.started)}]   ${this.step}`);
    } else if (event.type === "started" && !this.tty) {
      this.line(`[${elapsed(this.started)}]   agent started (${event.runner}, pid ${event.pid})`);
    }
  }

  private erase(): void {
    if (this.drawn > 1) this.stream.write(`\x1b[${this.drawn - 1}A`);
    this.stream.write("\r\x1b[J");
    this.drawn = 0;
  }

  private draw(): void {
    this.frame = (this.frame + 1) % FRAMES.length;
    const spinner = FRAMES[this.frame] ?? "";
    const block = this.planActive ? this.board.render(spinner) : [];
    const step = this.step && !this.planActive ? ` · ${this.step}` : "";
    const status = `${spinner} ${this.checkpoint} ${elapsed(this.started)}${step}`;
    this.erase();
    const lines = [...block, status].map(inert);
    this.stream.write(lines.join("\n"));
    this.drawn = lines.length;
  }

  private line(text: string): void {
    if (this.tty) this.erase();
    this.stream.write(`${inert(text)}\n`);
  }
}

function describeRecovery(action: RecoveryAction): string {
  const head = `Task ${action.taskNumber} (${action.operation}, ${action.sessionId}):`;
  if (action.action === "still_running") return `${head} still running — ${action.detail}`;
  if (action.action === "recorded")
    return `${head} recorded — ${action.detail}${action.committed ? " (committed)" : ""}`;
  if (action.action === "commit_pending") return `${head} COMMIT_FAILED — ${action.detail}`;
  return `${head} rolled back to ${action.status} — ${action.detail}`;
}

export function formatRecovery(actions: readonly RecoveryAction[]): string {
  return actions.length === 0
    ? "No open checkpoints: nothing to recover."
    : actions.map(describeRecovery).join("\n");
}

export function formatOperation(report: OperationReport): string {
  const lines: string[] = [];
  if (report.recovered) lines.push(`First: ${describeRecovery(report.recovered)}`);
  const result = report.result;
  if (result.ok) {
    lines.push(
      `Task ${report.taskNumber}: ${report.operation} ${result.outcome === "partial" ? "partly done" : "done"} → ${report.status} (${report.sessionId})`,
    );
  } else {
    lines.push(
      `Task ${report.taskNumber}: ${report.operation} refused at ${result.checkpoint} [${result.code}]: ${result.message}`,
      result.code === "COMMIT_FAILED"
        ? `  The result is recorded (${report.status}) but not committed, and its checkpoint stays open; fix what git said (a stale .git/index.lock: remove it if no git process runs), then run \`baton recover ${report.taskNumber}\` to commit it.`
        : `  The task stays ${report.status}; fix the cause and run \`baton ${report.operation} ${report.taskNumber}\` again (see docs/errors.md).`,
    );
  }
  if (!report.plan)
    lines.push(`  agent: ${report.agent} via ${report.runner} runner (${report.routeReason})`);
  if (report.plan) lines.push(...formatPlanRun(report.plan));
  for (const artifact of report.artifacts) lines.push(`  artifact: ${artifact}`);
  if (result.ok)
    lines.push(
      `  commit: ${result.committed ? "committed" : `none (${result.commitError ?? "nothing to commit"})`}`,
      ...leftOutLines(result.leftOut),
    );
  const u = report.usage;
  if (u) {
    const parts = [
      u.inputTokens !== undefined ? `${u.inputTokens} in` : "",
      u.outputTokens !== undefined ? `${u.outputTokens} out tokens` : "",
      u.costUsd !== undefined ? `$${u.costUsd.toFixed(4)}` : "",
      u.turns !== undefined ? `${u.turns} turns` : "",
      u.durationMs !== undefined ? `${(u.durationMs / 1000).toFixed(1)} s` : "",
    ].filter(Boolean);
    if (parts.length > 0) lines.push(`  usage: ${parts.join(", ")}`);
  }
  if (report.budget) {
    lines.push(
      `  BUDGET_EXCEEDED: ${report.budget.message}. Stopped there; run \`baton ${report.operation} ${report.taskNumber}\` again with more budget (\`--max-cost\`, or budgets in baton.config.*) to go on.`,
    );
  }
  lines.push(`  journal: ${report.journal}`);
  return lines.join("\n");
}

export function formatPlan(plan: DryRunPlan): string {
  const gate = plan.gateIn.ok
    ? `allowed: ${plan.status} → ${plan.gateIn.inProgress}, then ${plan.gateIn.done} if GATE OUT accepts the result${plan.gateIn.forced ? " (forced, audited)" : ""}`
    : `refused: ${plan.gateIn.reason}`;
  return [
    `Dry run: ${plan.operation} task ${plan.taskNumber} (nothing was written)`,
    ...(plan.recovers ? [`  first:     ${plan.recovers}`] : []),
    `  GATE IN:   ${gate}`,
    `  runner:    ${plan.runner.kind}${plan.runner.detail ? ` (${plan.runner.detail})` : ""}`,
    `  agent:     ${plan.agent} (${plan.agentSource}; ${plan.routeReason})`,
    `  artifact:  ${plan.artifactPath}`,
    `  metadata:  ${plan.metadataPath}`,
    `  timeout:   ${Math.round(plan.timeoutMs / 1000)} s`,
    ...(plan.plan
      ? [
          `  plan:      ${plan.plan.file}, run phase by phase, ${plan.plan.reading === "declared" ? "in waves of the dependencies its phases declare" : "in its order (no phase declares dependencies)"}`,
          ...plan.plan.waves.flatMap((phases, k) => [
            `    Wave ${k + 1}:`,
            ...phases.map((p) =>
              p.settled
                ? `      Phase ${p.id} ${p.name} [${p.marker}] — settled, not run`
                : `      Phase ${p.id} ${p.name} → ${p.agent} (${p.routeReason})`,
            ),
          ]),
          "  (each phase gets its own prompt; below is the prompt of a whole-task delegation)",
        ]
      : []),
    "",
    "Prompt:",
    ...plan.prompt.split("\n").map((line) => `  ${line}`),
  ].join("\n");
}

function formatPlanRun(plan: NonNullable<OperationReport["plan"]>): string[] {
  const lines = [`  plan: ${plan.file} — ${plan.waves.length} wave(s), ${plan.phases.length} phase(s)`];
  for (const phase of plan.phases) {
    const head = `    Phase ${phase.id} (wave ${phase.wave + 1}) ${phase.name}`;
    if (phase.state === "settled") {
      lines.push(`${head}: already complete`);
      continue;
    }
    if (phase.state === "not_run" || !phase.record) {
      lines.push(`${head}: not run`);
      continue;
    }
    const { verdict, marker, commit, keptBranch } = phase.record;
    const via = phase.agent ? ` via ${phase.agent}` : "";
    const detail =
      verdict.kind === "complete"
        ? `${verdict.iterations} iteration(s)${commit && "sha" in commit ? `, commit ${commit.sha.slice(0, 10)}` : commit && "error" in commit ? `, commit failed: ${commit.error}` : ""}`
        : verdict.kind === "partial" || verdict.kind === "dependency_blocked"
          ? verdict.message
          : `${verdict.code}: ${verdict.message}`;
    lines.push(`${head}: [${marker}]${via} — ${detail}${keptBranch ? ` (branch ${keptBranch})` : ""}`);
  }
  if (plan.unfinished?.length) {
    lines.push(`  not complete in ${plan.file} as it now stands (so the task is not completed):`);
    for (const phase of plan.unfinished) lines.push(`    ${phase}`);
  }
  return lines;
}
