import type { ReturnMetadata } from "../gate-out/index.js";
import type { PhaseReport, PlanRunReport } from "./run-plan.js";

function verdictText(report: PhaseReport): string {
  if (report.state === "settled") return "complete before this run";
  if (report.state === "not_run") return "not run (the run stopped first)";
  const record = report.record!;
  const v = record.verdict;
  const commit = record.commit && "sha" in record.commit ? `, commit ${record.commit.sha.slice(0, 10)}` : "";
  if (v.kind === "complete")
    return `complete in ${v.iterations} iteration${v.iterations === 1 ? "" : "s"}${commit}`;
  if (v.kind === "partial") return `partial: ${v.message}`;
  if (v.kind === "dependency_blocked") return `blocked: ${v.message}`;
  return `${v.kind}: ${v.code} ${v.message}${record.keptBranch ? ` (work kept on ${record.keptBranch})` : ""}`;
}

export function countComplete(report: PlanRunReport): { complete: number; total: number } {
  const complete = report.phases.filter(
    (p) => p.state === "settled" || p.record?.verdict.kind === "complete",
  ).length;
  return { complete, total: report.phases.length };
}

/**
 * The implementation summary of a plan run, written by Baton from what the barriers verified (never by
 * an agent): one line per phase with its verdict, its agent and its summary file.
 */
export function renderRunSummary(
  report: PlanRunReport,
  info: { taskNumber: number; title: string; plan: string; sessionId: string; date: string },
): string {
  const { complete, total } = countComplete(report);
  const lines = [
    `# Implementation Summary: Task #${info.taskNumber}`,
    "",
    `- **Task**: ${info.taskNumber} - ${info.title}`,
    `- **Status**: [${report.outcome === "done" ? "COMPLETED" : report.outcome === "partial" ? "PARTIAL" : "BLOCKED"}]`,
    `- **Plan**: ${info.plan}`,
    `- **Session**: ${info.sessionId}`,
    `- **Date**: ${info.date}`,
    `- **Phases**: ${complete} of ${total} complete`,
    "",
    "## Phase Log",
    "",
  ];
  report.waves.forEach((ids, k) => {
    lines.push(`### Wave ${k + 1}`, "");
    for (const id of ids) {
      const phase = report.phases.find((p) => p.id === id);
      if (!phase) continue;
      const agent = phase.agent ? ` — ${phase.agent}` : "";
      lines.push(`- Phase ${id}: ${phase.name}${agent} — ${verdictText(phase)}`);
    }
    lines.push("");
  });
  if (report.unfinished?.length) {
    lines.push(
      "## Not Complete",
      "",
      "The plan file as it stands after the run holds phases no verified barrier completed:",
      "",
      ...report.unfinished.map((u) => `- ${u}`),
      "",
    );
  }
  const linked = report.summaries.map((s) => `- [${s.summary ?? s.path}](${s.path})`);
  if (linked.length > 0) lines.push("## Phase Summaries", "", ...linked, "");
  if (report.completionSummaries.length > 0) {
    lines.push("## Completion", "", ...report.completionSummaries.map((c) => `- ${c}`), "");
  }
  return lines.join("\n");
}

/** The run's result in the return-metadata shape, so GATE OUT's record step treats it like an agent's. */
export function runMetadata(
  report: PlanRunReport,
  summaryPath: string,
  sessionId: string,
  planName: string,
): ReturnMetadata {
  const { complete, total } = countComplete(report);
  const meta: ReturnMetadata = {
    status: report.outcome === "done" ? "implemented" : "partial",
    summary: `${complete} of ${total} phases of ${planName} complete`,
    artifacts: [{ type: "summary", path: summaryPath, summary: `${complete} of ${total} phases complete` }],
    metadata: { session_id: sessionId, agent_type: "baton-plan-run" },
    partial_progress: { phases_completed: complete, phases_total: total },
  };
  if (report.unfinished?.length) meta.work_remaining = report.unfinished;
  if (report.outcome === "done") {
    meta.completion_data = {
      completion_summary:
        report.completionSummaries.length > 0
          ? report.completionSummaries.join(" ")
          : `All ${total} phases of ${planName} complete.`,
    };
  }
  return meta;
}
