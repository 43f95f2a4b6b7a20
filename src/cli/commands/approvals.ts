import {
  type ApprovalStanding,
  type ApprovalVerdict,
  activeStandings,
  answerWords,
  approverName,
} from "../../approvals/index.js";
import { loadConfig } from "../../config/index.js";
import { type ApprovalOutcome, recordApproval } from "../../engine/index.js";
import { BatonError } from "../../shared/errors.js";
import { readStore, requireStore, storeContext } from "../../state/index.js";
import { parseTaskNumber } from "./task.js";

/** `baton approve N` / `baton reject N --reason …`: a person's word on task N's current plan. */
export async function answerPlan(options: {
  repo: string;
  number: string;
  verdict: ApprovalVerdict;
  reason?: string | undefined;
  sha256?: string | undefined;
}): Promise<ApprovalOutcome> {
  if (options.verdict === "rejected" && !options.reason?.trim())
    throw new BatonError(
      "INVALID_ARGUMENT",
      "a rejection needs --reason: the person who revises the plan reads it",
    );
  const config = await loadConfig(options.repo);
  requireStore(storeContext(config));
  return recordApproval({
    config,
    taskNumber: parseTaskNumber(options.number),
    verdict: options.verdict,
    reason: options.reason?.trim(),
    seenSha256: options.sha256,
  });
}

export interface WaitingApproval {
  task: number;
  title: string;
  standing: Exclude<ApprovalStanding["kind"], "not_required">;
  plan: string | null;
  /** Of the plan's bytes, as `baton approve N --sha256` takes it. */
  sha256: string | null;
  contentSha256: string | null;
  /** Who answered last, and what: for a stale approval or a rejection. */
  last: string | null;
}

/** `baton approvals`: every active task whose configuration asks for approval, and where its plan stands. */
export async function listApprovals(options: {
  repo: string;
  all?: boolean | undefined;
}): Promise<WaitingApproval[]> {
  const config = await loadConfig(options.repo);
  const ctx = storeContext(config);
  requireStore(ctx);
  const rows: WaitingApproval[] = [];
  for (const { task, standing } of activeStandings(config, readStore(ctx).state.tasks)) {
    if (standing.kind === "not_required") continue;
    if ((standing.kind === "approved" || standing.kind === "no_plan") && !options.all) continue;
    const plan = "plan" in standing ? standing.plan : null;
    const answered =
      "approval" in standing ? standing.approval : standing.kind === "pending" ? standing.earlier : null;
    rows.push({
      task: task.project_number,
      title: task.project_name,
      standing: standing.kind,
      plan: plan?.path ?? null,
      sha256: plan?.sha256 ?? null,
      contentSha256: plan?.contentSha256 ?? null,
      last: answered ? answerWords(answered) : null,
    });
  }
  return rows;
}

const WORDS: Record<WaitingApproval["standing"], string> = {
  pending: "waits for approval",
  stale: "changed since it was approved: waits for approval again",
  rejected: "rejected: waits for `baton revise`",
  approved: "approved",
  no_plan: "no plan yet",
};

export function formatApprovals(rows: readonly WaitingApproval[]): string {
  if (rows.length === 0) return "No plan waits for approval.";
  return rows
    .map((row) => {
      const plan = row.plan ? ` ${row.plan} (sha256 ${row.sha256?.slice(0, 12)}…)` : "";
      const last = row.last ? `\n    last: ${row.last}` : "";
      return `Task ${row.task}:${plan} ${WORDS[row.standing]}${last}`;
    })
    .join("\n");
}

export function formatAnswer(number: string, outcome: ApprovalOutcome): string {
  if (!outcome.ok) return `${outcome.code}: ${outcome.message}`;
  const { approval } = outcome;
  const what = approval.verdict === "approved" ? "Approved" : "Rejected";
  const commit = outcome.committed
    ? "committed"
    : outcome.commitError
      ? `not committed: ${outcome.commitError}`
      : "not committed";
  return `${what} task ${number}'s plan ${approval.plan} (sha256 ${approval.sha256.slice(0, 12)}…) as ${approverName(approval.by)}; ${commit}.`;
}
