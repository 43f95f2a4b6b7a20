/**
 * The dashboard's only style and script, served inline: it works with no network at all (no CDN, no
 * fonts, no build step). The script listens to `/events` (server-sent events) and redraws the live
 * parts — what runs, the latest results and refusals, costs — and moves a task's card when its
 * status changes, without a reload.
 */
export const CSS = `
:root { color-scheme: light dark; --fg:#1d232b; --muted:#5d6875; --bg:#f6f7f9; --card:#fff; --line:#d9dee4;
  --ok:#1f7a3f; --bad:#b3261e; --run:#8a5a00; --accent:#2456a6; }
@media (prefers-color-scheme: dark) { :root { --fg:#e6e9ee; --muted:#9aa4b1; --bg:#15181d; --card:#1e232a;
  --line:#2e353f; --ok:#5cc98a; --bad:#ff8a80; --run:#f0b64a; --accent:#8ab4ff; } }
* { box-sizing: border-box; }
body { margin:0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color:var(--fg); background:var(--bg); }
header { display:flex; gap:1rem; align-items:baseline; padding:.8rem 1.2rem; border-bottom:1px solid var(--line); background:var(--card); }
header h1 { font-size:1.15rem; margin:0; } header a { color:var(--accent); text-decoration:none; }
#live { font-size:.8rem; color:var(--muted); } #live.on::before { content:"● "; color:var(--ok); }
main { padding:1rem 1.2rem; display:grid; gap:1rem; grid-template-columns:minmax(0,1fr); }
section > h2 { font-size:.95rem; margin:.2rem 0 .5rem; }
.panel { background:var(--card); border:1px solid var(--line); border-radius:8px; padding:.7rem .9rem; min-width:0; }
.scroll { overflow-x:auto; max-width:100%; }
.board { display:grid; grid-template-columns:repeat(auto-fill, minmax(190px, 1fr)); gap:.7rem; }
.column { background:var(--card); border:1px solid var(--line); border-radius:8px; padding:.5rem; min-height:4rem; }
.column h3 { font-size:.8rem; text-transform:uppercase; letter-spacing:.04em; color:var(--muted); margin:.1rem .2rem .5rem; }
.column ul { list-style:none; margin:0; padding:0; display:grid; gap:.35rem; }
.card { border:1px solid var(--line); border-radius:6px; padding:.35rem .5rem; background:var(--bg); min-width:0; overflow-wrap:anywhere; }
.card a { color:var(--fg); text-decoration:none; } .card .n { color:var(--muted); margin-right:.3rem; }
.card .lang { float:right; font-size:.75rem; color:var(--muted); }
.more { color:var(--muted); font-size:.8rem; padding:.2rem; }
table { border-collapse:collapse; width:100%; } td, th { text-align:left; padding:.25rem .5rem; border-bottom:1px solid var(--line); vertical-align:top; }
td code { overflow-wrap:anywhere; }
tr:has(+ tr.why) td { border-bottom:none; } tr.why td { padding-top:0; color:var(--muted); font-size:.85rem; }
.msg { display:-webkit-box; -webkit-line-clamp:3; -webkit-box-orient:vertical; overflow:hidden; overflow-wrap:anywhere; }
th { font-weight:600; color:var(--muted); font-size:.8rem; }
.dead { color:var(--bad); font-weight:600; } .alive { color:var(--run); } .ok { color:var(--ok); } .bad { color:var(--bad); }
.empty { color:var(--muted); }
code, pre { font-family: ui-monospace, "SFMono-Regular", Menlo, monospace; font-size:.85em; }
pre.diff .add { color:#1a7f37; } pre.diff .del { color:#cf222e; text-decoration:line-through; } pre.diff .ctx { color:#888; }
pre { overflow:auto; background:var(--bg); padding:.6rem; border-radius:6px; border:1px solid var(--line); }
.markdown { max-width: 60rem; } .markdown h1 { font-size:1.3rem; } .markdown h2 { font-size:1.1rem; }
.phases .marker { font-size:.75rem; padding:.05rem .35rem; border-radius:4px; border:1px solid var(--line); }
.cols { display:grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 420px), 1fr)); gap:1rem; }
.cols > * { min-width:0; }
header { flex-wrap:wrap; } header span { overflow-wrap:anywhere; min-width:0; }
.back { margin:0; } .facts { display:flex; flex-wrap:wrap; gap:.3rem 1.2rem; margin:.4rem 0; padding:0; list-style:none; }
.facts li { color:var(--muted); } .facts b { color:var(--fg); font-weight:600; }
@media (max-width: 900px) { main { padding:.7rem; } td, th { padding:.2rem .35rem; } }
`;

export const CLIENT = `
(() => {
  const $ = (id) => document.getElementById(id);
  const esc = (s) => String(s ?? "").replace(/[&<>"']/g, (c) => ({"&":"&amp;","<":"&lt;",">":"&gt;","\\"":"&quot;","'":"&#39;"}[c]));
  const usd = (n) => "$" + (n < 10 ? n.toFixed(4) : n.toFixed(2));
  const dur = (ms) => { const s = Math.floor(ms / 1000); return s < 60 ? s + "s" : Math.floor(s / 60) + "m" + String(s % 60).padStart(2, "0") + "s"; };
  const eventRow = (e) => "<tr><td>" + esc(e.ts.slice(11, 19)) + "</td><td>" + (e.task !== undefined ? '<a href="/task/' + e.task + '">#' + e.task + "</a>" : "") +
    "</td><td>" + esc(e.operation ?? e.kind) + '</td><td class="' + (/done|passed|committed|recovered/.test(e.outcome) ? "ok" : "bad") + '">' +
    esc(e.kind === "hook" ? "hook " + (e.code ?? "") + " " + e.outcome : e.outcome) + (e.code && e.kind !== "hook" ? " [" + esc(e.code) + "]" : "") +
    "</td></tr>" + (e.message ? '<tr class="why"><td colspan="4"><div class="msg" title="' + esc(e.message) + '">' + esc(e.message) + "</div></td></tr>" : "");
  const table = (head, rows, empty) => rows.length === 0 ? '<p class="empty">' + empty + "</p>" : '<div class="scroll"><table><tr>' + head.map((h) => "<th>" + h + "</th>").join("") + "</tr>" + rows.join("") + "</table></div>";
  function drawStatus(s) {
    const running = $("running-body"); if (running) running.innerHTML = table(["task", "operation", "agent", "elapsed", "state", "doing", "spent"],
      s.running.map((r) => '<tr data-session="' + esc(r.session) + '"><td><a href="/task/' + r.task + '">#' + r.task + "</a></td><td>" + esc(r.operation) + "</td><td>" + esc(r.agent ?? "") +
        "</td><td>" + dur(r.elapsedMs) + '</td><td class="' + (r.alive === false ? "dead" : "alive") + '">' + (r.alive === false ? "dead — run " + esc(r.next) : r.mode === "session" ? "in a session" : "running") +
        "</td><td>" + esc(r.doing ?? "") + "</td><td>" + (r.spentUsd ? usd(r.spentUsd) : "") + "</td></tr>"), "Nothing is running.");
    const results = $("results-body"); if (results) results.innerHTML = table(["time", "task", "operation", "outcome"], s.results.map(eventRow), "No results yet.");
    const refusals = $("refusals-body"); if (refusals) refusals.innerHTML = table(["time", "task", "what", "outcome"], s.refusals.map(eventRow), "Nothing refused.");
    const costs = $("costs-body"); if (costs) costs.innerHTML = "<p>Today " + usd(s.costs.today.costUsd) + " in " + s.costs.today.runs + " agent runs · all " + usd(s.costs.total.costUsd) + "</p>" +
      table(["task", "cost", "runs"], s.costs.byTask.slice(0, 10).map((r) => '<tr><td><a href="/task/' + r.key + '">#' + esc(r.key) + "</a></td><td>" + usd(r.costUsd) + "</td><td>" + r.runs + "</td></tr>"), "Nothing spent yet.");
  }
  function moveCard(t) {
    const old = document.querySelector('.card[data-task="' + t.number + '"]');
    const column = document.querySelector('.column[data-status="' + t.status + '"] ul');
    if (old) { const from = old.closest(".column"); old.remove(); if (from) count(from, -1); }
    if (!column) return;
    const li = document.createElement("li"); li.className = "card"; li.dataset.task = t.number;
    li.innerHTML = '<a href="/task/' + t.number + '"><span class="n">#' + t.number + "</span>" + esc(t.title) + '</a><span class="lang">' + esc(t.language) + "</span>";
    column.prepend(li); count(column.closest(".column"), 1);
  }
  function count(column, delta) { const c = column.querySelector(".count"); if (c) c.textContent = String(Number(c.textContent) + delta); }
  const source = new EventSource("/events");
  source.addEventListener("open", () => { $("live").className = "on"; $("live").textContent = "live"; });
  source.addEventListener("error", () => { $("live").className = ""; $("live").textContent = "reconnecting…"; });
  source.addEventListener("status", (m) => drawStatus(JSON.parse(m.data)));
  source.addEventListener("tasks", (m) => { for (const t of JSON.parse(m.data)) moveCard(t); document.body.dataset.updated = String(Date.now()); });
  source.addEventListener("task", (m) => { const d = JSON.parse(m.data); if (document.body.dataset.task === String(d.number) && d.status !== document.body.dataset.status) location.reload(); });
  window.addEventListener("click", (e) => {
    const b = e.target.closest("button[data-action]"); if (!b) return;
    if (!confirm(b.dataset.confirm)) return;
    b.disabled = true;
    fetch(b.dataset.action, { method: "POST", headers: { "x-baton-token": document.body.dataset.token } })
      .then((r) => r.json()).then((d) => { b.textContent = d.message ?? d.error ?? "done"; }).catch((err) => { b.textContent = String(err); });
  });
  window.addEventListener("click", (e) => {
    const b = e.target.closest("button[data-answer]"); if (!b) return;
    const reason = ($("reject-reason") || {}).value || "";
    const out = $("answer-result");
    if (b.dataset.answer === "reject" && !reason.trim()) { out.textContent = "Say why you reject it."; return; }
    b.disabled = true;
    fetch("/api/" + b.dataset.answer + "/" + b.dataset.task, {
      method: "POST",
      headers: { "content-type": "application/json", "x-baton-token": document.body.dataset.token },
      body: JSON.stringify({ sha256: b.dataset.sha256, reason }),
    }).then((r) => r.json()).then((d) => {
      out.textContent = d.message ?? d.error; document.body.dataset.answered = d.message ? "yes" : "no";
      if (!d.message) b.disabled = false;
    }).catch((err) => { out.textContent = String(err); b.disabled = false; });
  });
})();
`;
