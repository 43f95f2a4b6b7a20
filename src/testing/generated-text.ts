/** Files of a generated repository written as text, the way people format them by hand. */

export function todoText(todoEntries: string[], nextNumber: number, firstActive: number): string {
  return [
    "---",
    `next_project_number: ${nextNumber}`,
    "repository_health:",
    "  overall_score: 92",
    "  production_readiness: improved",
    "task_counts:",
    "  active: 7",
    "  total: 743",
    "technical_debt:",
    "  sorry_count: 16",
    '  sorry_count_note: "Excluding Boneyard"',
    "---",
    "",
    "# TODO",
    "",
    "<!-- Curated by hand: keep this comment -->",
    "",
    "## Task Order",
    "",
    "1. Finish the parser work first",
    `2. Then ${firstActive}`,
    "",
    "## Tasks",
    "",
    ...todoEntries,
    "## Notes",
    "",
    "A closing paragraph that Baton must keep byte for byte.",
    "",
  ].join("\n");
}

/** Hand-formatted on purpose: compact arrays that JSON.stringify would expand. */
export function errorsJson(firstActive: number): string {
  return [
    "{",
    '  "_schema_version": "2.0.0",',
    '  "_comment": "Centralized error tracking",',
    '  "errors": [',
    "    {",
    '      "id": "err_1736969700000",',
    '      "timestamp": "2026-01-15T18:35:00Z",',
    '      "type": "git_commit_failure",',
    '      "severity": "medium",',
    '      "message": "Git commit failed: nothing to commit",',
    `      "context": {"session_id": "sess_1736969600_abc123", "command": "/research", "task": ${firstActive}, "checkpoint": "COMMIT"},`,
    '      "trajectory": {"delegation_path": ["orchestrator", "research", "git-workflow-manager"], "failed_at_depth": 2},',
    '      "fix_status": "unfixed"',
    "    }",
    "  ],",
    '  "aggregations": {"by_type": {}, "by_session": {}, "by_task": {}}',
    "}",
    "",
  ].join("\n");
}
