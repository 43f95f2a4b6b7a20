import {
  type ApprovalStanding,
  activeStandings,
  answerWords,
  approvalStanding,
  approvedPlanText,
  planApprovalOf,
} from "../approvals/index.js";
import type { BatonConfig } from "../config/index.js";
import { planContent } from "../plan/index.js";
import { editScript, type Op } from "../shared/line-diff.js";
import { readSettledStore, storeContext, type TaskEntry } from "../state/index.js";
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

export type DiffLine = Op;

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
    last: recorded ? answerWords(recorded) : null,
  };
}

/** The content of two plan texts (Baton's progress edits aside), compared line by line: what changed, two lines around. */
export function lineDiff(before: string, after: string): DiffLine[] {
  const a = planContent(before).split("\n");
  const b = planContent(after).split("\n");
  // The common beginning and end are most of a plan: only the middle goes through the edit script.
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let end = 0;
  while (end < a.length - start && end < b.length - start && a[a.length - 1 - end] === b[b.length - 1 - end])
    end++;
  const context = (lines: string[]) => lines.map((text) => ({ kind: " " as const, text }));
  return [
    ...context(a.slice(Math.max(0, start - 2), start)),
    ...editScript(a.slice(start, a.length - end), b.slice(start, b.length - end)),
    ...context(a.slice(a.length - end, a.length - end + 2)),
  ];
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
            `<span class="${d.kind === "+" ? "add" : d.kind === "-" ? "del" : "ctx"}">${esc(`${d.kind} ${d.text}`)}</span>`,
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
  const waiting: WaitingPlan[] = [];
  for (const { task, standing } of activeStandings(
    config,
    (await readSettledStore(storeContext(config))).state.tasks,
  )) {
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
