export {
  APPROVAL_KEY,
  approvedPlanOf,
  approverName,
  PlanApproval,
  planApprovalOf,
} from "./approval-record.js";
export { APPROVAL_COMMAND_ENV, notifyPendingApproval, type PendingApproval } from "./notify.js";
export { approvedPlanText, describePlanChange } from "./plan-change.js";
export {
  type ApprovalStanding,
  approvalStanding,
  approvalWait,
  type CurrentPlan,
  currentPlan,
  standingRefusal,
} from "./standing.js";
