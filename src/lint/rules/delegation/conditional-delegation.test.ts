import { describe, expect, it } from "vitest";
import { modelFromTexts } from "../../../../test/support/lint-model.js";
import { conditionalDelegation } from "./conditional-delegation.js";

const run = async (files: Record<string, string>) => conditionalDelegation.check(modelFromTexts(files));

describe("delegation/conditional-delegation", () => {
  it("reports 'if simple, do it directly' and an If-heading over 'Execute directly'", async () => {
    const findings = await run({
      ".claude/commands/implement.md": [
        "---",
        "description: Implement a task",
        "---",
        "If the task is simple, do it directly; otherwise invoke the implementer agent via the Task tool.",
        "",
        "**If wave has single phase**:",
        "- Execute directly (no parallelization benefit)",
        "- Mark phase [IN PROGRESS] then [COMPLETED]",
        "",
        "**If wave has multiple independent phases**:",
        "- Spawn teammate per phase (up to team_size)",
        "",
        "When the fix is a one-liner, handle it yourself without delegating.",
        "If the task is not complex, do it directly.",
      ].join("\n"),
    });
    expect(findings.map((f) => f.line)).toEqual([4, 7, 13, 14]);
    expect(findings[0]?.severity).toBe("warning");
  });

  it("accepts inline-only skills, prohibitions and unconditional 'directly'", async () => {
    const findings = await run({
      ".claude/skills/skill-status-sync/SKILL.md": [
        "---",
        "name: skill-status-sync",
        "description: Sync status",
        "---",
        "This skill executes inline without spawning a subagent.",
        "If the plan file is missing, execute the update directly.",
      ].join("\n"),
      ".claude/commands/meta.md": [
        "Interactive system builder that delegates to `skill-meta` via the Task tool.",
        "This command NEVER implements changes directly - it only creates tasks.",
        "If GATE OUT refused, say why; do not try to repair the agent's work yourself.",
        "If the build fails, do not fix it yourself; report it.",
        "- Running `lake build` directly to see real-time output",
        "When the subagent returns, process the metadata file directly.",
      ].join("\n"),
    });
    expect(findings).toEqual([]);
  });
});
