import { describe, expect, it } from "vitest";
import { modelFromTexts } from "../../../../test/support/lint-model.js";
import { unknownSkill } from "./unknown-skill.js";

const base = {
  ".claude/skills/skill-planner/SKILL.md": "---\nname: skill-planner\ndescription: d\n---\n",
  ".claude/commands/research.md": "---\ndescription: d\n---\n",
  ".claude/agents/planner-agent.md": "---\nname: planner-agent\ndescription: d\n---\n",
};
const check = (files: Record<string, string>) => unknownSkill.check(modelFromTexts({ ...base, ...files }));

describe("references/unknown-skill", () => {
  it("reports Skill(x), `skill:` inputs, agent `skills:` and skill tables naming missing skills", async () => {
    const findings = await check({
      ".claude/commands/plan.md": [
        "---\ndescription: d\nallowed-tools: Skill(skill-planer)\n---",
        "Invoke the Skill tool with:",
        "```",
        'skill: "skill-lean-plan"',
        "```",
        "| Language | Skill to Invoke |",
        "|---|---|",
        "| lean | `skill-lean-research` |",
      ].join("\n"),
      ".claude/agents/a.md":
        "---\nname: a\ndescription: d\nskills: skill-planner, skill-missing\n---\nUse Skill(planner-agent) now.\n",
    });
    expect(findings.map((f) => [f.file, f.line, f.message.split(" does")[0]])).toEqual([
      [".claude/agents/a.md", 4, "skill `skill-missing` (`skills:`)"],
      [".claude/agents/a.md", 6, "skill `planner-agent` (Skill(…))"],
      [".claude/commands/plan.md", 3, "skill `skill-planer` (Skill(…))"],
      [".claude/commands/plan.md", 7, "skill `skill-lean-plan` (`skill:`)"],
      [".claude/commands/plan.md", 11, "skill `skill-lean-research` (a table's skill column)"],
    ]);
    expect(findings[1]!.message).toContain("it is an agent");
    expect(findings[2]!.hint).toBe("Did you mean `skill-planner`?");
  });

  it("passes skills, commands (Skill calls reach them too), metadata, plurals and counter-examples", async () => {
    const findings = await check({
      ".claude/skills/skill-planner/SKILL.md": [
        "---\nname: skill-planner\ndescription: d\n---",
        "Skill(skill-planner) and Skill(research) and the Skill(s) below.",
        "**DO NOT** use `Skill(planner-agent)` - this will FAIL.",
        "**Wrong**:",
        "```",
        "Use Skill(lean-research-agent) to execute",
        "```",
        "```json",
        '{ "skill": "skill-name", "task": 1 }',
        "```",
        "Required skill: Lean",
        "| Skill | Purpose |",
        "|---|---|",
        "| Pass-through | `{skill-name}` |",
      ].join("\n"),
    });
    expect(findings).toEqual([]);
  });
});
