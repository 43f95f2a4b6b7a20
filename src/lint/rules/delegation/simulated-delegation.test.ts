import { describe, expect, it } from "vitest";
import { modelFromTexts } from "../../../../test/support/lint-model.js";
import { simulatedDelegation } from "./simulated-delegation.js";

const run = async (files: Record<string, string>) => simulatedDelegation.check(modelFromTexts(files));

describe("delegation/simulated-delegation", () => {
  it("reports simulated, stubbed and TODO delegations in a command body", async () => {
    const findings = await run({
      ".claude/commands/research.md": [
        "---",
        "description: Research a task",
        "---",
        "### STAGE 2: DELEGATE",
        "",
        "Simulate the research agent invocation and summarise what it would find.",
        "",
        "```bash",
        "# TODO: invoke lean-research-agent here",
        'echo "Research agent completed: report written"',
        "```",
        "",
        "Use a placeholder agent result until the Task tool works.",
      ].join("\n"),
    });
    expect(findings.map((f) => f.line)).toEqual([6, 9, 10, 13]);
    expect(findings[0]).toMatchObject({ severity: "error", rule: "delegation/simulated-delegation" });
  });

  it("reports a .sh command that sleeps in place of the agent", async () => {
    const findings = await run({
      ".claude/commands/plan.sh": [
        "#!/bin/bash",
        'echo "Delegating to planner-agent..."',
        "sleep 3",
        'echo "{\\"status\\": \\"planned\\"}"',
      ].join("\n"),
    });
    expect(findings.map((f) => f.line)).toEqual([3, 4]);
  });

  it("accepts real delegations, warnings against simulating, polling loops and unrelated placeholders", async () => {
    const findings = await run({
      ".claude/skills/skill-researcher/SKILL.md": [
        "---",
        "name: skill-researcher",
        "description: Research",
        "---",
        "**CRITICAL**: You MUST use the **Task** tool to spawn the subagent. Do NOT simulate the agent.",
        "- Fixes use `sorry` placeholders that compile but indicate incomplete work",
        "If Strategies sections are empty placeholders, skip them.",
        "1. Simulate failure (e.g., make file read-only)",
        "```bash",
        'while [ ! -f "$metadata_file" ]; do',
        "  sleep 2  # wait for the agent to write its metadata",
        "done",
        'echo "Subagent returned; reading $metadata_file"',
        "```",
      ].join("\n"),
      ".claude/scripts/claude-refresh.sh":
        "#!/bin/bash\nkill $pid\nsleep 0.5 # the agent process needs a moment\n",
    });
    expect(findings).toEqual([]);
  });
});
