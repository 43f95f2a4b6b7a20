import type { BatonEvent } from "../shared/event-stream.js";
import type { StatusView } from "../status/index.js";

const usd = (n: number) => `$${n < 10 ? n.toFixed(4) : n.toFixed(2)}`;
const tokens = (n: number) => (n >= 10_000 ? `${Math.round(n / 1000)}k` : String(n));

function duration(ms: number): string {
  // Events written before durations were measured on the monotonic clock may hold a negative one.
  const s = Math.floor(Math.max(0, ms) / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, "0")}m`;
}

const clock = (ts: string) => ts.slice(11, 19);

function eventLine(e: BatonEvent): string {
  const what = [
    clock(e.ts),
    e.task !== undefined ? `task ${e.task}` : "",
    e.operation ?? "",
    e.kind === "hook" ? `hook ${e.code ?? ""} ${e.outcome}${e.tool ? ` ${e.tool}` : ""}` : (e.outcome ?? ""),
    e.kind !== "hook" && e.code ? `[${e.code}]` : "",
    e.costUsd !== undefined ? usd(e.costUsd) : "",
    e.durationMs !== undefined ? duration(e.durationMs) : "",
  ].filter(Boolean);
  return `  ${what.join(" ")}${e.message ? `: ${e.message}` : ""}`;
}

/** Plain lines, one thing per line; `width` clips each (a watching terminal's columns). */
/** How many tasks `status` names by cost (the fast path asks readStatus for only these). */
export const STATUS_TOP_TASKS = 8;

export function formatStatus(
  view: StatusView & { approvals?: ReadonlyArray<{ task: number; plan: string | null; standing: string }> },
  width = Number.POSITIVE_INFINITY,
): string {
  const out: string[] = [];
  if (view.approvals && view.approvals.length > 0) {
    out.push(`Waiting for a person (${view.approvals.length}):`);
    for (const a of view.approvals)
      out.push(
        `  task ${a.task} ${a.standing === "rejected" ? "plan rejected: baton revise" : `plan ${a.standing}: baton approve`} ${a.task}${a.plan ? `  ${a.plan}` : ""}`,
      );
  }
  out.push(view.running.length === 0 ? "Running: nothing" : `Running (${view.running.length}):`);
  for (const r of view.running) {
    const state =
      r.mode === "queue"
        ? `via the queue${r.machine ? ` (${r.machine})` : ""}`
        : r.alive === false
          ? "DEAD"
          : r.mode === "session"
            ? "in a session"
            : r.alive === "unknown"
              ? `on ${r.host}`
              : `pid ${r.pid}`;
    out.push(
      `  task ${r.task} ${r.operation}  ${r.agent ?? "?"}  ${duration(r.elapsedMs)}  ${state}${r.doing ? `  ${r.doing}` : ""}${r.spentUsd > 0 ? `  ${usd(r.spentUsd)}` : ""}  ${r.session}`,
    );
    if (r.next)
      out.push(`    ${r.alive === false ? "its process is gone; run" : "close it with"}: ${r.next}`);
  }
  out.push(view.results.length === 0 ? "Last results: none yet" : "Last results:");
  for (const e of view.results) out.push(eventLine(e));
  out.push(view.refusals.length === 0 ? "Refused: nothing" : "Refused:");
  for (const e of view.refusals) out.push(eventLine(e));
  const c = view.costs;
  out.push(
    `Cost: today ${usd(c.today.costUsd)} (${c.today.runs} agent runs, ${tokens(c.today.tokensIn)} in / ${tokens(c.today.tokensOut)} out tokens); all ${usd(c.total.costUsd)} (${c.total.runs} runs)`,
  );
  if (c.byTask.length > 0)
    out.push(
      `  by task: ${c.byTask
        .slice(0, STATUS_TOP_TASKS)
        .map((r) => `#${r.key} ${usd(r.costUsd)}`)
        .join(" · ")}`,
    );
  if (c.byOperation.length > 0)
    out.push(`  by operation: ${c.byOperation.map((r) => `${r.key} ${usd(r.costUsd)}`).join(" · ")}`);
  if (c.byDay.length > 0)
    out.push(
      `  by day: ${c.byDay
        .slice(0, 7)
        .map((r) => `${r.key} ${usd(r.costUsd)}`)
        .join(" · ")}`,
    );
  return out
    .map((line) => (line.length > width ? `${line.slice(0, Math.max(1, width - 1))}…` : line))
    .join("\n");
}
