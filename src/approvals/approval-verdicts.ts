/** A person's word on a plan: the one list (state.json, evidence, the CLI's commands, the MCP tools, the dashboard). */
export const APPROVAL_VERDICTS = ["approved", "rejected"] as const;
export type ApprovalVerdict = (typeof APPROVAL_VERDICTS)[number];
