import { describe, expect, it } from "vitest";
import { modelFromTexts } from "../../../../test/support/lint-model.js";
import { returnsCompleted } from "./returns-completed.js";

const run = async (files: Record<string, string>) => returnsCompleted.check(modelFromTexts(files));

describe("delegation/returns-completed", () => {
  it("reports return formats and examples that use status completed", async () => {
    const findings = await run({
      ".claude/context/core/orchestration/delegation.md": [
        "## Return Format",
        "",
        "All subagents MUST return this standardized JSON structure:",
        "",
        "```json",
        "{",
        '  "status": "completed|failed|partial|blocked",',
        '  "summary": "Brief 2-5 sentence summary (max 100 tokens)",',
        '  "artifacts": []',
        "}",
        "```",
      ].join("\n"),
      ".claude/agents/planner-agent.md": [
        "---",
        "name: planner-agent",
        "description: Plans",
        "---",
        "### Example 1: Successful Completion",
        "```json",
        '{"status": "completed", "artifacts": [{"type": "plan", "path": "specs/1_x/plans/implementation-001.md"}]}',
        "```",
      ].join("\n"),
      ".claude/skills/skill-meta/SKILL.md": [
        "---",
        "name: skill-meta",
        "description: Meta",
        "---",
        "### 4. Return Validation",
        "- Status is one of: completed, partial, failed, blocked",
      ].join("\n"),
    });
    expect(findings.map((f) => `${f.file}:${f.line}`)).toEqual([
      ".claude/agents/planner-agent.md:7",
      ".claude/context/core/orchestration/delegation.md:7",
      ".claude/skills/skill-meta/SKILL.md:6",
    ]);
  });

  it("accepts task statuses, nested teammate statuses, prohibitions and counter-examples", async () => {
    const findings = await run({
      ".claude/agents/general-research-agent.md": [
        "---",
        "name: general-research-agent",
        "description: Research",
        "---",
        "**MUST NOT**:",
        "1. Return JSON to the console",
        '7. Use status value "completed" (triggers Claude stop behavior)',
        "",
        "## Return Format",
        "```json",
        "{",
        '  "status": "researched",',
        '  "teammate_results": [{"name": "A", "status": "completed"},',
        '    {"name": "B",',
        '     "status": "completed"}],',
        '  "artifacts": []',
        "}",
        "```",
      ].join("\n"),
      ".claude/commands/todo.md": [
        "## Return",
        "```json",
        '{"project_number": 906, "status": "completed", "completion_summary": "Expanded task auto-completed"}',
        "```",
        'Confirm status is now "completed" in state.json.',
        "```bash",
        'if [ "$status" = "completed" ]; then echo done; fi',
        "```",
      ].join("\n"),
      ".claude/context/core/orchestration/validation.md": [
        "### Why This Matters",
        '**Problem**: Agents may update status to "completed" without creating artifacts.',
        "**Example**:",
        "```json",
        '{"status": "completed", "summary": "Research completed", "artifacts": []}',
        "```",
        '**Root Cause:** Agent returned status="completed" without creating artifacts.',
      ].join("\n"),
      ".claude/docs/guides/creating-agents.md": '```json\n{"status": "completed", "summary": "x"}\n```\n',
    });
    expect(findings).toEqual([]);
  });
});
