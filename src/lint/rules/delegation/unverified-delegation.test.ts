import { describe, expect, it } from "vitest";
import { modelFromTexts } from "../../../../test/support/lint-model.js";
import { unverifiedDelegation } from "./unverified-delegation.js";

const run = async (files: Record<string, string>) => unverifiedDelegation.check(modelFromTexts(files));

const DELEGATE = [
  "---",
  "name: skill-planner",
  "description: Plan a task",
  "---",
  "### Stage 5: Invoke Subagent",
  "",
  "**CRITICAL**: You MUST use the **Task** tool to spawn the subagent.",
  "",
  "```",
  "Tool: Task (NOT Skill)",
  "Parameters:",
  '  - subagent_type: "planner-agent"',
  "  - prompt: [Include task_context, delegation_context, metadata_file_path]",
  "```",
  "",
];

describe("delegation/unverified-delegation", () => {
  it("reports a delegation followed by nothing that checks the result", async () => {
    const findings = await run({
      ".claude/skills/skill-planner/SKILL.md": [
        ...DELEGATE,
        "### Stage 6: Update Status",
        "",
        "Set the task to planned and commit.",
      ].join("\n"),
    });
    expect(findings).toEqual([expect.objectContaining({ line: 12, severity: "warning" })]);
    expect(findings[0]?.message).toContain("3 delegations");
  });

  it("reports a second delegation added after the only check", async () => {
    const findings = await run({
      ".claude/commands/implement.md": [
        "1. Invoke the Agent tool with subagent_type `baton-implementer`.",
        "2. Verify the summary artifact exists.",
        "3. If phases remain, call the Agent tool again to continue.",
        "4. Report to the user.",
      ].join("\n"),
    });
    expect(findings.map((f) => f.line)).toEqual([3]);
  });

  it("accepts a delegation followed by a read of .return-meta.json, gate-out or an artifact check", async () => {
    const findings = await run({
      ".claude/skills/skill-planner/SKILL.md": [
        ...DELEGATE,
        "### Stage 6: Parse Subagent Return (Read Metadata File)",
        "```bash",
        'if [ -f "$metadata_file" ] && jq empty "$metadata_file" 2>/dev/null; then',
        "  status=$(jq -r '.status' \"$metadata_file\")",
        "fi",
        "```",
      ].join("\n"),
      ".claude/commands/research.md": [
        "2. Otherwise invoke the agent it names with the Agent tool IN THE FOREGROUND.",
        "3. When the agent has returned, run `baton gate-out research $0 --session <id>`.",
      ].join("\n"),
      ".claude/commands/plan.md": [
        "The skill will:",
        "1. Prepare delegation context",
        "2. Invoke planner-agent",
        "3. Return a brief summary",
      ].join("\n"),
    });
    expect(findings).toEqual([]);
  });
});
