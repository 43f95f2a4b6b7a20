/** A person's approval of a plan, recorded and committed. */
export { type ApprovalOutcome, type ApprovalRequest, recordApproval } from "./record-approval.js";
