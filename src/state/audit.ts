import type { TaskEntry } from "./store-schema.js";

export interface AuditNote {
  timestamp: string;
  action: string;
  from: string;
  to: string;
  note: string;
}

/** A forced change is kept on the task itself, so the override stays visible in reviewed diffs. */
export function recordAudit(task: TaskEntry, note: AuditNote): void {
  const existing = Array.isArray(task["baton_audit"]) ? (task["baton_audit"] as AuditNote[]) : [];
  task["baton_audit"] = [...existing, note];
}
