import {
  type ApprovalStanding,
  approvalStanding,
  approvedPlanText,
  approverName,
  planApprovalOf,
} from "../approvals/index.js";
import type { BatonConfig } from "../config/index.js";
import { planContent } from "../plan/index.js";
import { readSettledStore, storeContext, type TaskEntry, taskFolderPath } from "../state/index.js";
import { escapeHtml as esc, renderMarkdown } from "./inert-markdown.js";

/** What the task page shows of a plan that needs a person's word: the plan, what changed, who said what. */
export interface ApprovalView {
  standing: Exclude<ApprovalStanding["kind"], "not_required" | "no_plan">;
  plan: string;
  /** Of the bytes shown: an answer is refused when the plan is no longer these bytes. */
  sha256: string;
  text: string;
  /** The plan's content since the last approved version, line by line; null when there is none to compare. */
  diff: DiffLine[] | null;
  last: string | null;
}

export type DiffLine = { op: " " | "+" | "-"; line: string };

/** The approval panel's data; null where the configuration asks no approval or there is no plan. */
export async function readApproval(
  config: BatonConfig,
  entry: TaskEntry,
  folder: string,
): Promise<ApprovalView | null> {
  const standing = approvalStanding(config, entry, folder);
  if (standing.kind === "not_required" || standing.kind === "no_plan") return null;
  const recorded = planApprovalOf(entry);
  const approvedBlob = recorded?.verdict === "approved" ? recorded.blob : null;
  const approved = approvedBlob ? await approvedPlanText(config.root, approvedBlob) : null;
  return {
    standing: standing.kind,
    plan: standing.plan.path,
    sha256: standing.plan.sha256,
    text: standing.plan.text,
    diff: approved === null || standing.kind === "approved" ? null : lineDiff(approved, standing.plan.text),
    last: recorded
      ? `${recorded.verdict} by ${approverName(recorded.by)} at ${recorded.at}${recorded.reason ? `: ${recorded.reason}` : ""}`
      : null,
  };
}

/** Lines of the longest common subsequence: past this size, only the changed middle is shown. */
const MAX_CELLS = 4_000_000;

/** The content of two plan texts (Baton's progress edits aside), compared line by line. */
export function lineDiff(before: string, after: string): DiffLine[] {
  const a = planContent(before).split("\n");
  const b = planContent(after).split("\n");
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let end = 0;
  while (end < a.length - start && end < b.length - start && a[a.length - 1 - end] === b[b.length - 1 - end])
    end++;
  const x = a.slice(start, a.length - end);
  const y = b.slice(start, b.length - end);
  const middle: DiffLine[] =
    x.length * y.length > MAX_CELLS
      ? [...x.map((line) => ({ op: "-" as const, line })), ...y.map((line) => ({ op: "+" as const, line }))]
      : commonSubsequenceDiff(x, y);
  const context = (lines: string[]) => lines.map((line) => ({ op: " " as const, line }));
  return [
    ...context(a.slice(Math.max(0, start - 2), start)),
    ...middle,
    ...context(a.slice(a.length - end, a.length - end + 2)),
  ];
}

function commonSubsequenceDiff(x: string[], y: string[]): DiffLine[] {
  const width = y.length + 1;
  const table = new Uint32Array((x.length + 1) * width);
  for (let i = x.length - 1; i >= 0; i--)
    for (let j = y.length - 1; j >= 0; j--)
      table[i * width + j] =
        x[i] === y[j]
          ? table[(i + 1) * width + j + 1]! + 1
          : Math.max(table[(i + 1) * width + j]!, table[i * width + j + 1]!);
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < x.length || j < y.length) {
    if (i < x.length && j < y.length && x[i] === y[j]) {
      out.push({ op: " ", line: x[i]! });
      i++;
      j++;
    } else if (j < y.length && (i === x.length || table[i * width + j + 1]! > table[(i + 1) * width + j]!)) {
      out.push({ op: "+", line: y[j++]! });
    } else out.push({ op: "-", line: x[i++]! });
  }
  return out;
}

const WORDS: Record<ApprovalView["standing"], string> = {
  pending: "This plan waits for your approval before <code>implement</code> may run it.",
  stale: "This plan changed after it was approved: it waits for your approval again.",
  rejected: "This plan was rejected; <code>baton revise</code> makes the next one.",
  approved: "This plan is approved: <code>implement</code> may run it while its content stays as it is.",
};

/** The panel: where the plan stands, what changed since the approved version, the plan itself, the buttons. */
export function renderApproval(task: number, view: ApprovalView | null | undefined): string {
  if (!view) return "";
  const diff = view.diff
    ? `<h3>Changed since the approved version</h3><pre class="diff" id="plan-diff">${view.diff
        .map(
          (d) =>
            `<span class="${d.op === "+" ? "add" : d.op === "-" ? "del" : "ctx"}">${esc(`${d.op} ${d.line}`)}</span>`,
        )
        .join("\n")}</pre>`
    : "";
  const answer =
    view.standing === "approved" || view.standing === "rejected"
      ? ""
      : `<p class="answer"><button data-answer="approve" data-task="${task}" data-sha256="${view.sha256}">Approve this plan</button>
<input id="reject-reason" placeholder="why (required to reject)" size="40"> <button data-answer="reject" data-task="${task}" data-sha256="${view.sha256}">Reject</button> <span id="answer-result"></span></p>`;
  return `<section class="panel" id="approval" data-standing="${view.standing}"><h2>Approval — <code>${esc(view.plan)}</code></h2><p>${WORDS[view.standing]}${view.last ? ` Last: ${esc(view.last)}.` : ""}</p><p><small>sha256 ${view.sha256}</small></p>${answer}${diff}<details${view.standing === "approved" ? "" : " open"}><summary>The plan as it is now</summary><div class="markdown" id="plan-text">${renderMarkdown(view.text)}</div></details></section>`;
}

/** A plan waiting for a person, as the board lists it. */
export interface WaitingPlan {
  task: number;
  title: string;
  standing: "pending" | "stale" | "rejected";
  plan: string;
}

/** Every active task's plan that waits for a person's word (none where the configuration asks no approval). */
export async function readWaitingPlans(config: BatonConfig): Promise<WaitingPlan[]> {
  if (Object.keys(config.approvals.implement).length === 0) return [];
  const ctx = storeContext(config);
  const waiting: WaitingPlan[] = [];
  for (const task of (await readSettledStore(ctx)).state.tasks) {
    if (["completed", "abandoned", "implemented"].includes(task.status)) continue;
    const standing = approvalStanding(
      config,
      task,
      taskFolderPath(ctx.paths.dir, task, config.artifactNaming),
    );
    if (standing.kind === "pending" || standing.kind === "stale" || standing.kind === "rejected")
      waiting.push({
        task: task.project_number,
        title: task.project_name,
        standing: standing.kind,
        plan: standing.plan.path,
      });
  }
  return waiting;
}

/** The board's panel of plans that wait for a person; nothing where none waits. */
export function renderWaitingPlans(waiting: readonly WaitingPlan[]): string {
  if (waiting.length === 0) return "";
  const rows = waiting
    .map(
      (w) =>
        `<li><a href="/task/${w.task}">#${w.task} ${esc(w.title)}</a> — <code>${esc(w.plan)}</code> ${w.standing === "rejected" ? "rejected: waits for revise" : w.standing === "stale" ? "changed since approved: waits for you" : "waits for your approval"}</li>`,
    )
    .join("");
  return `<section class="panel" id="waiting-plans"><h2>Waiting for a person (${waiting.length})</h2><ul>${rows}</ul></section>`;
}
