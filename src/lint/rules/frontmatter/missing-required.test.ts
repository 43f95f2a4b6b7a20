import { describe, expect, it } from "vitest";
import { modelFromTexts } from "../../../../test/support/lint-model.js";
import { missingRequired } from "./missing-required.js";

const check = (files: Record<string, string>) => missingRequired.check(modelFromTexts(files));

describe("frontmatter/missing-required", () => {
  it("reports agents and skills without name or description", async () => {
    const findings = await check({
      ".claude/agents/a.md": "---\nname: a\n---\nBody\n",
      ".claude/agents/none.md": "# No frontmatter\n",
      ".claude/skills/s/SKILL.md": "---\ndescription: ''\nname: s\n---\n",
    });
    expect(findings.map((f) => [f.file, f.line, f.message])).toEqual([
      [".claude/agents/a.md", 1, "agent frontmatter lacks `description`; Claude Code skips this agent"],
      [".claude/agents/none.md", 1, "agent has no frontmatter; Claude Code skips this agent"],
      [
        ".claude/skills/s/SKILL.md",
        2,
        "skill frontmatter has an empty `description`; the model cannot tell when to use this skill",
      ],
    ]);
  });

  it("passes complete definitions, commands, and leaves unreadable YAML to invalid-yaml", async () => {
    expect(
      await check({
        ".claude/agents/a.md": "---\nname: a\ndescription: d\n---\n",
        ".claude/commands/c.md": "# command\n",
        ".claude/agents/broken.md": "---\nname: a\n  - y: [\n---\n",
      }),
    ).toEqual([]);
  });
});

describe("documentation kept in an agent folder", () => {
  it("is no agent to Claude Code, and a warning (not an error) for opencode, which loads it", async () => {
    const findings = await check({
      ".claude/agents/README.md": "# Our agents\n\nWhat each one does.\n",
      ".opencode/agent/README.md": "# Our agents\n",
      ".opencode/agent/subagents/a.md": "---\ndescription: d\n---\nBody\n",
    });
    expect(findings.map((f) => [f.file, f.severity, f.message])).toEqual([
      [
        ".opencode/agent/README.md",
        "warning",
        'opencode loads this documentation as an agent named "README" (every .md under its agent folder is one), so the model is offered it',
      ],
    ]);
  });
});
