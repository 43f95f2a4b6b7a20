import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as z from "zod/mini";
import { planContentHash } from "../plan/index.js";
import type { TaskEntry } from "../state/index.js";
import { APPROVAL_VERDICTS } from "./approval-verdicts.js";

/**
 * A person's word on a task's plan, in the task's state.json entry (`plan_approval`): what they approved or
 * rejected (the plan's path, the SHA-256 of its exact bytes and of its content — planContent — and its git
 * object id), who (the git identity and the OS user), when, and the session whose signed evidence holds it.
 */
export const PlanApproval = z.object({
  verdict: z.enum(APPROVAL_VERDICTS),
  plan: z.string(),
  sha256: z.string(),
  content_sha256: z.string(),
  blob: z.string(),
  by: z.object({ git: z.nullable(z.string()), user: z.string() }),
  at: z.string(),
  reason: z.optional(z.string()),
  session: z.string(),
});
export type PlanApproval = z.infer<typeof PlanApproval>;

/** The state.json key of a task's approval. */
export const APPROVAL_KEY = "plan_approval";

/** The task's recorded approval; null when none is recorded or it is not one Baton reads. */
export function planApprovalOf(task: TaskEntry): PlanApproval | null {
  const parsed = PlanApproval.safeParse((task as Record<string, unknown>)[APPROVAL_KEY]);
  return parsed.success ? parsed.data : null;
}

/** A recorded answer in words: `approved by A <a@b> (user) at …: reason`. */
export function answerWords(approval: PlanApproval): string {
  const reason = approval.reason ? `: ${approval.reason}` : "";
  return `${approval.verdict} by ${approverName(approval.by)} at ${approval.at}${reason}`;
}

/** A person in words: the git identity, else the OS user. */
export function approverName(by: PlanApproval["by"]): string {
  return by.git ? `${by.git} (${by.user})` : by.user;
}

/**
 * What an `implement` result's evidence says of the approval it ran under: the approved plan, its content hash
 * and the approval's session — only when the task's recorded approval is a yes to the plan's content as it
 * is now. Absent otherwise (no approval, a rejection, or a plan changed since), which `baton verify` reports
 * where the configuration asked for one.
 */
export function approvedPlanOf(
  root: string,
  task: TaskEntry | undefined,
): { plan: string; contentSha256: string; session: string } | undefined {
  const approval = task ? planApprovalOf(task) : null;
  if (approval === null || approval.verdict !== "approved") return undefined;
  let text: string;
  try {
    text = readFileSync(join(root, approval.plan), "utf8");
  } catch {
    return undefined;
  }
  if (planContentHash(text) !== approval.content_sha256) return undefined;
  return { plan: approval.plan, contentSha256: approval.content_sha256, session: approval.session };
}
