export {
  APPROVAL_KEY,
  answerWords,
  approvedPlanOf,
  approverName,
  PlanApproval,
  planApprovalOf,
} from "./approval-record.js";
export { APPROVAL_VERDICTS, type ApprovalVerdict } from "./approval-verdicts.js";
export { APPROVAL_COMMAND_ENV, notifyPendingApproval, type PendingApproval } from "./notify.js";
export { approvedPlanText, describePlanChange } from "./plan-change.js";
export {
  type ApprovalRefusalCode,
  type ApprovalStanding,
  activeStandings,
  approvalStanding,
  approvalWait,
  type CurrentPlan,
  currentPlan,
  standingRefusal,
  type UnansweredStanding,
} from "./standing.js";
