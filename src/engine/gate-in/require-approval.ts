import {
  approvalStanding,
  approvedPlanText,
  currentPlan,
  describePlanChange,
  notifyPendingApproval,
  standingRefusal,
} from "../../approvals/index.js";
import { approvalEvidenceProblem } from "../../evidence/index.js";
import type { GateInStep } from "./gate-in-step.js";

/**
 * `implement` where the configuration asks for it (`approvals.implement`): the task's current plan must carry
 * a person's approval of its very content. None yet (APPROVAL_REQUIRED), changed since (APPROVAL_STALE, naming
 * what changed) or rejected (APPROVAL_REJECTED) refuses before anything is written. Every entry point —
 * the CLI, `baton run`, the queue, a live session's gate-in — passes GATE IN, so none goes around it.
 */
export const requireApproval: GateInStep = async ({ run }) => {
  if (run.operation !== "implement") return { ok: true };
  const plan = currentPlan(run.config, run.task, run.folder);
  const standing = approvalStanding(run.config, run.task, run.folder, plan);
  let changed: string | undefined;
  if (standing.kind === "stale") {
    const approved = await approvedPlanText(run.config.root, standing.approval.blob);
    if (approved !== null) changed = describePlanChange(approved, standing.plan.text);
  }
  if (standing.kind === "approved") {
    const forged = await approvalEvidenceProblem(run.config.root, run.folder, standing.approval);
    if (forged)
      return {
        ok: false,
        code: "APPROVAL_REQUIRED",
        message: `task ${run.taskNumber}'s plan has no approval Baton recorded: ${forged}; \`baton approve ${run.taskNumber}\` records one`,
      };
  }
  const refusal = standingRefusal(run.taskNumber, standing, changed);
  if (standing.kind === "pending" || standing.kind === "stale") {
    const pending = { task: run.taskNumber, title: run.title, standing: standing.kind, plan: standing.plan };
    await notifyPendingApproval(run.config, run.ctx.paths.internalDir, pending);
  }
  return refusal === null ? { ok: true } : { ok: false, ...refusal };
};
