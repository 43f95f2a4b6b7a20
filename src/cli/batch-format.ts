import type { BatchProgress, BatchReport } from "../batch/index.js";
import { Stopwatch } from "../shared/time.js";

const usd = (n: number) => `$${n.toFixed(4)}`;

/** Live lines on stderr: each run as it starts and ends, and what its phases and agents do. */
export function batchReporter(stream: NodeJS.WritableStream): (event: BatchProgress) => void {
  const started = new Stopwatch();
  const clock = () => {
    const s = Math.floor(started.elapsedMs() / 1000);
    return `[${String(Math.floor(s / 60)).padStart(2, "0")}:${String(s % 60).padStart(2, "0")}]`;
  };
  return (event) => {
    if (event.type === "started") {
      stream.write(
        `${clock()} task ${event.task} ${event.operation} started${event.pid ? ` (pid ${event.pid})` : ""}\n`,
      );
    } else if (event.type === "finished") {
      const r = event.run;
      stream.write(
        `${clock()} task ${r.task} ${r.operation} ${r.ok ? `done → ${r.status}` : `failed [${r.code ?? "?"}]: ${r.message ?? ""}`}${r.costUsd ? ` ${usd(r.costUsd)}` : ""}\n`,
      );
    } else {
      const e = event.event;
      if (e.kind === "queue")
        stream.write(
          `${clock()}   task ${e.task ?? "?"} ${e.outcome}${e.machine ? ` on ${e.machine}` : ""}${e.message ? `: ${e.message}` : ""}\n`,
        );
      else if (e.kind === "phase" || e.kind === "wave" || (e.kind === "agent" && e.phase))
        stream.write(
          `${clock()}   task ${e.task} ${e.kind === "wave" ? `wave ${e.wave}` : `phase ${e.phase}`} ${e.kind === "agent" ? `agent ${e.outcome}` : e.outcome}${e.costUsd ? ` ${usd(e.costUsd)}` : ""}\n`,
        );
    }
  };
}

export function formatBatch(report: BatchReport): string {
  const lines: string[] = [];
  const ok = report.runs.filter((r) => r.ok).length;
  lines.push(
    `Ran ${report.runs.length} operation${report.runs.length === 1 ? "" : "s"} on ${report.selected.length} selected task${report.selected.length === 1 ? "" : "s"}: ${ok} done, ${report.runs.length - ok} failed; spent ${usd(report.spentUsd)}.`,
  );
  for (const r of report.runs)
    lines.push(
      `  task ${r.task} ${r.operation}: ${r.ok ? `done → ${r.status}` : `failed [${r.code ?? "?"}] ${r.message ?? ""}`}${r.session ? ` (${r.session})` : ""}`,
    );
  if (report.finished.length > 0) lines.push(`Reached the target: ${report.finished.join(", ")}`);
  for (const w of report.waiting) lines.push(`Not done: task ${w.number}: ${w.reason}`);
  if (report.stopped === "signal")
    lines.push("Stopped: every run was stopped cleanly; `baton run` again goes on from here.");
  if (report.stopped === "budget")
    lines.push("Stopped [BUDGET_EXCEEDED]: --max-cost is spent; run `baton run` again with more to go on.");
  return lines.join("\n");
}
