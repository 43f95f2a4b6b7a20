import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { relative } from "node:path";
import { type BatonConfig, planApprovalRequired } from "../config/index.js";
import { planContentHash } from "../plan/index.js";
import { latestPlanFile, storeContext, type TaskEntry, taskFolderPath, taskTypeOf } from "../state/index.js";
import { approverName, type PlanApproval, planApprovalOf } from "./approval-record.js";

/** The plan an approval is about, as it is now. */
export interface CurrentPlan {
  /** Repository-relative. */
  path: string;
  text: string;
  /** Of its exact bytes: what a person who read it names (`baton approve N --sha256 …`). */
  sha256: string;
  contentSha256: string;
}

/**
 * Where a task's plan stands with its approval. `not_required`: the configuration asks none for this task's
 * type. `no_plan`: one is required and there is no plan to approve. `pending`: nobody has answered for this
 * plan's content. `stale`: an approval was recorded, and the plan's content changed since. `rejected`: this
 * very content was rejected. `approved`: this very content was approved.
 */

/** Why GATE IN refuses `implement` for its plan's approval. */
export type ApprovalRefusalCode = "APPROVAL_REQUIRED" | "APPROVAL_STALE" | "APPROVAL_REJECTED";

export type ApprovalStanding =
  | { kind: "not_required" }
  | { kind: "no_plan" }
  | { kind: "pending"; plan: CurrentPlan; earlier: PlanApproval | null }
  | { kind: "stale"; plan: CurrentPlan; approval: PlanApproval }
  | { kind: "rejected"; plan: CurrentPlan; approval: PlanApproval }
  | { kind: "approved"; plan: CurrentPlan; approval: PlanApproval };

/** The standings that wait for a person's word: none yet on this plan, or one on an earlier one. */
export type UnansweredStanding = Extract<ApprovalStanding["kind"], "pending" | "stale">;

/** The task's current plan, read once: what GATE IN checks is what the run executes. */
export function currentPlan(config: BatonConfig, task: TaskEntry, folder: string): CurrentPlan | null {
  const path = latestPlanFile(config.root, folder, task.artifacts ?? []);
  if (path === null) return null;
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return null;
  }
  const sha256 = createHash("sha256").update(text).digest("hex");
  return { path: relative(config.root, path), text, sha256, contentSha256: planContentHash(text) };
}

export function approvalStanding(
  config: BatonConfig,
  task: TaskEntry,
  folder: string,
  plan: CurrentPlan | null = currentPlan(config, task, folder),
): ApprovalStanding {
  if (!planApprovalRequired(config, taskTypeOf(task) ?? config.defaultLanguage))
    return { kind: "not_required" };
  if (plan === null) return { kind: "no_plan" };
  const approval = planApprovalOf(task);
  if (approval === null) return { kind: "pending", plan, earlier: null };
  const same = approval.content_sha256 === plan.contentSha256;
  if (approval.verdict === "approved")
    return same ? { kind: "approved", plan, approval } : { kind: "stale", plan, approval };
  return same ? { kind: "rejected", plan, approval } : { kind: "pending", plan, earlier: approval };
}

/** Statuses with nothing left to approve. */
const FINISHED = new Set(["completed", "abandoned", "implemented"]);

/** Where each unfinished task's plan stands: what `baton approvals`, status and the dashboard list. */
export function activeStandings(
  config: BatonConfig,
  tasks: readonly TaskEntry[],
): Array<{ task: TaskEntry; standing: ApprovalStanding }> {
  const dir = storeContext(config).paths.dir;
  return tasks
    .filter((task) => !FINISHED.has(task.status))
    .map((task) => ({
      task,
      standing: approvalStanding(config, task, taskFolderPath(dir, task, config.artifactNaming)),
    }));
}

/** A standing that keeps `implement` from starting, in words with what to do; null when it may start. */
export function standingRefusal(
  taskNumber: number,
  standing: ApprovalStanding,
  changed?: string,
): { code: ApprovalRefusalCode; message: string } | null {
  switch (standing.kind) {
    case "not_required":
    case "approved":
      return null;
    case "no_plan":
      return {
        code: "APPROVAL_REQUIRED",
        message: `task ${taskNumber} has no plan to approve, and the configuration (approvals.implement) asks for one: run \`baton plan ${taskNumber}\` first`,
      };
    case "pending":
      return {
        code: "APPROVAL_REQUIRED",
        message: `task ${taskNumber}'s plan ${standing.plan.path} waits for a person's approval: \`baton approve ${taskNumber}\` (in a session, the person types \`/approve ${taskNumber}\`; or reject it with a reason)`,
      };
    case "stale":
      return {
        code: "APPROVAL_STALE",
        message: `task ${taskNumber}'s plan changed after ${approverName(standing.approval.by)} approved it (${standing.approval.plan} at ${standing.approval.at})${changed ? `: ${changed}` : ""}; approve it again with \`baton approve ${taskNumber}\``,
      };
    case "rejected":
      return {
        code: "APPROVAL_REJECTED",
        message: `task ${taskNumber}'s plan ${standing.plan.path} was rejected by ${approverName(standing.approval.by)}${standing.approval.reason ? `: ${standing.approval.reason}` : ""}; \`baton revise ${taskNumber}\` makes a new one`,
      };
  }
}

/**
 * Why `implement` on this task waits for a person, in a line `baton run` shows; null when it need not. The
 * pending approval to tell the person of comes with it (not for a rejection: that waits for `revise`).
 */
export function approvalWait(
  config: BatonConfig,
  task: TaskEntry,
  folder: string,
): { reason: string; pending: { standing: UnansweredStanding; plan: CurrentPlan } | null } | null {
  const standing = approvalStanding(config, task, folder);
  const n = task.project_number;
  switch (standing.kind) {
    case "not_required":
    case "approved":
      return null;
    case "no_plan":
      return { reason: "implement waits for a plan to approve", pending: null };
    case "rejected":
      return { reason: `its plan was rejected: \`baton revise ${n}\``, pending: null };
    default:
      return {
        reason: `implement waits for a person to approve its plan: \`baton approve ${n}\``,
        pending: { standing: standing.kind, plan: standing.plan },
      };
  }
}
