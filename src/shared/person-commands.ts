/**
 * Baton's commands only a person may run inside a live session: a person's word on a plan (docs/approvals.md).
 * `baton init` lets them out of Claude Code's sandbox only in their plain form, for the slash command's `!` line
 * the person types; Baton's PreToolUse hook refuses every tool call of them, so the model never answers.
 */
export const PERSON_COMMANDS = ["approve", "reject"] as const;
