import type { BatonEvent } from "../shared/event-stream.js";
import { TASK_STATUSES } from "../state/index.js";
import type { StatusView } from "../status/index.js";
import { renderApproval, renderWaitingPlans, type WaitingPlan } from "./approval-panel.js";
import { CLIENT, CSS } from "./assets.js";
import type { Board, TaskPage } from "./data.js";
import { escapeHtml as esc, renderMarkdown } from "./inert-markdown.js";

/** The board's columns: every status Baton writes, in its order; a status found in real files gets its own. */
const COLUMNS: readonly string[] = TASK_STATUSES;
/** Cards drawn per column on first paint; the rest are counted (the page stays small at any size). */
const CARDS_PER_COLUMN = 100;

const usd = (n: number) => `$${n < 10 ? n.toFixed(4) : n.toFixed(2)}`;

function page(title: string, body: string, attrs = ""): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${esc(title)}</title><style>${CSS}</style></head><body${attrs}><header><h1><a href="/">Baton</a></h1><span>${esc(title)}</span><span id="live">connecting…</span></header><main>${body}</main><script>${CLIENT}</script></body></html>`;
}

function outcomeClass(outcome: string | undefined): string {
  if (/^(done|passed|committed|recovered|complete|finished)$/.test(outcome ?? "")) return "ok";
  return /^(started|partial)$/.test(outcome ?? "") ? "" : "bad";
}

function eventRow(e: BatonEvent): string {
  const outcome = e.kind === "hook" ? `hook ${e.code ?? ""} ${e.outcome}` : (e.outcome ?? "");
  return `<tr><td>${esc(e.ts.slice(11, 19))}</td><td>${e.task !== undefined ? `<a href="/task/${e.task}">#${e.task}</a>` : ""}</td><td>${esc(e.operation ?? e.kind)}</td><td class="${outcomeClass(e.outcome)}">${esc(outcome)}${e.code && e.kind !== "hook" ? ` [${esc(e.code)}]` : ""}</td></tr>${whyRow(e.message, 4)}`;
}

/** A message on its own full-width line under its row, clamped to three lines (the whole text on hover). */
function whyRow(message: string | undefined, columns: number): string {
  if (!message) return "";
  return `<tr class="why"><td colspan="${columns}"><div class="msg" title="${esc(message)}">${esc(message)}</div></td></tr>`;
}

function table(head: string[], rows: string[], empty: string): string {
  if (rows.length === 0) return `<p class="empty">${esc(empty)}</p>`;
  return `<div class="scroll"><table><tr>${head.map((h) => `<th>${esc(h)}</th>`).join("")}</tr>${rows.join("")}</table></div>`;
}

function duration(ms: number): string {
  const s = Math.floor(ms / 1000);
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
}

/** The live sections; the client redraws the same ids from `/events`. */
/** What runs now; the client redraws `#running-body` from `/events`. */
function runningSection(runs: StatusView["running"]): string {
  const rows = runs.map(
    (r) =>
      `<tr data-session="${esc(r.session)}"><td><a href="/task/${r.task}">#${r.task}</a></td><td>${esc(r.operation)}</td><td>${esc(r.agent ?? "")}</td><td>${duration(r.elapsedMs)}</td><td class="${r.alive === false ? "dead" : "alive"}">${r.alive === false ? `dead — run ${esc(r.next ?? "")}` : r.mode === "session" ? "in a session" : "running"}</td><td>${esc(r.doing ?? "")}</td><td>${r.spentUsd ? usd(r.spentUsd) : ""}</td></tr>`,
  );
  return `<section class="panel" id="running"><h2>Running</h2><div id="running-body">${table(["task", "operation", "agent", "elapsed", "state", "doing", "spent"], rows, "Nothing is running.")}</div></section>`;
}

/** The live sections of the board: what runs, the last results and refusals, and costs. */
function statusSections(status: StatusView): string {
  const c = status.costs;
  return `${runningSection(status.running)}
<div class="cols"><section class="panel"><h2>Last results</h2><div id="results-body">${table(["time", "task", "operation", "outcome"], status.results.map(eventRow), "No results yet.")}</div></section>
<section class="panel"><h2>Refused</h2><div id="refusals-body">${table(["time", "task", "what", "outcome"], status.refusals.map(eventRow), "Nothing refused.")}</div></section>
<section class="panel"><h2>Cost</h2><div id="costs-body"><p>Today ${usd(c.today.costUsd)} in ${c.today.runs} agent runs · all ${usd(c.total.costUsd)}</p>${table(
    ["task", "cost", "runs"],
    c.byTask
      .slice(0, 10)
      .map(
        (r) =>
          `<tr><td><a href="/task/${esc(r.key)}">#${esc(r.key)}</a></td><td>${usd(r.costUsd)}</td><td>${r.runs}</td></tr>`,
      ),
    "Nothing spent yet.",
  )}</div></section></div>`;
}

export function renderBoard(
  repoName: string,
  board: Board,
  status: StatusView,
  waiting: readonly WaitingPlan[] = [],
): string {
  const byStatus = new Map<string, Board["tasks"]>(COLUMNS.map((s) => [s, []]));
  for (const task of board.tasks) {
    const list = byStatus.get(task.status) ?? [];
    list.push(task);
    byStatus.set(task.status, list);
  }
  const columns = [...byStatus.entries()].map(([status, tasks]) => {
    const cards = tasks
      .slice(0, CARDS_PER_COLUMN)
      .map(
        (t) =>
          `<li class="card" data-task="${t.number}"><a href="/task/${t.number}"><span class="n">#${t.number}</span>${esc(t.title)}</a><span class="lang">${esc(t.language)}</span></li>`,
      )
      .join("");
    const more =
      tasks.length > CARDS_PER_COLUMN
        ? `<p class="more">and ${tasks.length - CARDS_PER_COLUMN} more</p>`
        : "";
    return `<div class="column" data-status="${esc(status)}"><h3>${esc(status.replace(/_/g, " "))} <span class="count">${tasks.length}</span></h3><ul>${cards}</ul>${more}</div>`;
  });
  return page(
    repoName,
    `${renderWaitingPlans(waiting)}${statusSections(status)}<section><h2>Tasks (${board.tasks.length} active, ${board.archived} archived)</h2><div class="board" id="board">${columns.join("")}</div></section>`,
  );
}

function planSection(page: TaskPage): string {
  const plan = page.plan;
  if (!plan) return "";
  const waveOf = new Map<string, number>();
  plan.waves?.forEach((ids, k) => {
    for (const id of ids) waveOf.set(id, k + 1);
  });
  const rows = plan.phases.map(
    (p) =>
      `<tr><td>${esc(p.id)}</td><td>${esc(p.name)}</td><td>${waveOf.get(p.id) ?? ""}</td><td><span class="marker">${esc(p.marker ?? "")}</span></td><td>${esc(p.dependencies.join(", "))}</td></tr>`,
  );
  return `<section class="panel phases"><h2>Plan <code>${esc(plan.file)}</code>${plan.status ? ` [${esc(plan.status)}]` : ""}</h2>${table(["phase", "name", "wave", "state", "depends on"], rows, "The plan has no phases.")}</section>`;
}

export function renderTask(repoName: string, page: TaskPage, status: StatusView, token = ""): string {
  const t = page.task;
  const running = status.running.filter((r) => r.task === t.number);
  const actions = running
    .filter((r) => r.alive === false)
    .map(
      (r) =>
        `<button data-action="/api/recover/${t.number}" data-confirm="Recover task ${t.number}'s dead ${esc(r.operation)} run? A result that verifies is recorded, anything else is rolled back.">Recover this dead run</button>`,
    )
    .join("");
  const artifacts = page.artifacts.map((a, k) => {
    const link = `/task/${t.number}/artifact/${k}`;
    const size =
      a.bytes === null ? "" : ` · ${a.bytes < 1024 ? `${a.bytes} B` : `${Math.round(a.bytes / 1024)} KB`}`;
    const body =
      a.preview === null
        ? '<p class="bad">missing on disk</p>'
        : `<div class="markdown preview">${markdownOrText(a.path, a.preview)}</div>${a.whole ? "" : `<p><a href="${link}">Read it in full${size}</a></p>`}`;
    return `<section class="panel"><h2>${esc(a.type)} — <a href="${link}"><code>${esc(a.path)}</code></a><small>${size}</small></h2>${body}</section>`;
  });
  const sessions = page.events.map(
    (e) =>
      `<tr><td>${esc(e.ts.replace("T", " ").slice(0, 19))}</td><td><code>${esc(e.session ?? e.hostSession ?? "")}</code></td><td>${esc(e.kind)}${e.phase ? ` (phase ${esc(e.phase)})` : ""}${e.kind === "gate" || e.kind === "hook" ? ` ${esc(e.code ?? "")}` : ""}</td><td class="${outcomeClass(e.outcome)}">${esc(e.outcome ?? "")}${e.code && e.kind !== "gate" && e.kind !== "hook" ? ` [${esc(e.code)}]` : ""}</td><td>${e.costUsd !== undefined ? usd(e.costUsd) : ""}</td></tr>${whyRow(e.message, 5)}`,
  );
  const evidence = page.evidence.map(
    (e) =>
      `<details><summary><code>${esc(e.file)}</code></summary><pre>${esc(JSON.stringify(e.value, null, 2))}</pre></details>`,
  );
  const errors = page.errors.map(
    (e) =>
      `<tr><td>${esc(String(e["timestamp"] ?? ""))}</td><td>${esc(String(e["type"] ?? ""))}</td><td>${esc(String(e["message"] ?? ""))}</td></tr>`,
  );
  const spent = status.costs.byTask.find((r) => r.key === String(t.number));
  const body = `<p class="back"><a href="/">← Back to the board</a></p><section class="panel"><h2>#${t.number} ${esc(t.title)}</h2><p>Status <b id="task-status">${esc(t.status)}</b> · ${esc(t.language)} · folder <code>${esc(page.folder)}</code>${spent ? ` · spent ${usd(spent.costUsd)} in ${spent.runs} agent runs` : ""}</p>${taskFacts(t)}${t.description ? `<div class="markdown">${renderMarkdown(t.description)}</div>` : ""}${actions}</section>
${running.length > 0 ? runningSection(running) : ""}
${renderApproval(t.number, page.approval)}
${planSection(page)}
${artifacts.join("\n")}
<section class="panel"><h2>Sessions and checkpoints</h2>${table(["time", "session", "step", "outcome", "cost"], sessions, "No recorded runs yet.")}</section>
<section class="panel"><h2>Evidence</h2>${evidence.length > 0 ? evidence.join("") : '<p class="empty">No evidence yet.</p>'}</section>
<section class="panel"><h2>Errors</h2>${table(["time", "type", "message"], errors, "No errors recorded for this task.")}</section>`;
  return pageWith(`${repoName} — task ${t.number}`, body, t.number, t.status, token);
}

function markdownOrText(path: string, text: string): string {
  return path.endsWith(".md") ? renderMarkdown(text) : `<pre>${esc(text)}</pre>`;
}

/** One artifact, whole, on a page of its own (the task page shows each one's opening). */
export function renderArtifact(
  repoName: string,
  artifact: { task: number; path: string; type: string; text: string | null },
): string {
  const body = `<p class="back"><a href="/task/${artifact.task}">← Back to task ${artifact.task}</a></p><section class="panel"><h2>${esc(artifact.type)} — <code>${esc(artifact.path)}</code></h2>${artifact.text === null ? '<p class="bad">missing on disk</p>' : `<div class="markdown">${markdownOrText(artifact.path, artifact.text)}</div>`}</section>`;
  return pageWith(`${repoName} — task ${artifact.task} — ${artifact.path}`, body, artifact.task, "");
}

/** What a person plans by: dependencies and relatives (as links), priority, effort, dates. */
function taskFacts(t: TaskPage["task"]): string {
  const link = (n: number | string) =>
    /^\d+$/.test(String(n)) ? `<a href="/task/${esc(String(n))}">#${esc(String(n))}</a>` : esc(String(n));
  const facts: Array<[string, string]> = [
    ["depends on", t.dependencies.length > 0 ? t.dependencies.map(link).join(", ") : "nothing"],
    ["priority", t.priority ? esc(t.priority) : "not set"],
    ["effort", t.effort ? esc(t.effort) : "not set"],
  ];
  if (t.parent !== undefined) facts.push(["part of", link(t.parent)]);
  if (t.subtasks.length > 0) facts.push(["subtasks", t.subtasks.map(link).join(", ")]);
  if (t.created) facts.push(["created", esc(t.created.slice(0, 10))]);
  return `<ul class="facts" id="task-facts">${facts.map(([k, v]) => `<li>${k} <b>${v}</b></li>`).join("")}</ul>`;
}

/** `token`: the dashboard's per-start token, which its write endpoints require (no other origin can read it). */
function pageWith(title: string, body: string, task: number, status: string, token = ""): string {
  return page(title, body, ` data-task="${task}" data-status="${esc(status)}" data-token="${esc(token)}"`);
}

export function renderNotFound(repoName: string, what: string): string {
  return page(
    repoName,
    `<section class="panel"><h2>Not found</h2><p>${esc(what)}</p><p><a href="/">Back to the board</a></p></section>`,
  );
}
