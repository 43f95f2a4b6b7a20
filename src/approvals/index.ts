export {
  APPROVAL_KEY,
  approvedPlanOf,
  approverName,
  PlanApproval,
  planApprovalOf,
} from "./approval-record.js";
export { approvedPlanText, describePlanChange } from "./plan-change.js";
export {
  type ApprovalStanding,
  approvalStanding,
  type CurrentPlan,
  currentPlan,
  standingRefusal,
} from "./standing.js";
