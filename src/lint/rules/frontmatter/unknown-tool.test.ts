import { describe, expect, it } from "vitest";
import { modelFromTexts } from "../../../../test/support/lint-model.js";
import { unknownTool } from "./unknown-tool.js";

const check = (files: Record<string, string>) => unknownTool.check(modelFromTexts(files));

describe("frontmatter/unknown-tool", () => {
  it("reports misspelt and space-separated tools where they are written", async () => {
    const findings = await check({
      ".claude/agents/a.md": "---\nname: a\ndescription: d\ntools: Read, Reed\n---\n",
      ".claude/commands/c.md": "---\ndescription: d\nallowed-tools:\n  - Read Write\n---\n",
    });
    expect(findings.map((f) => [f.file, f.line, f.column, f.hint.slice(0, 20)])).toEqual([
      [".claude/agents/a.md", 4, 14, "Use a tool name (Rea"],
      [".claude/commands/c.md", 4, 5, "Separate tools with "],
    ]);
  });

  it("passes built-ins, patterns, MCP tools and YAML lists", async () => {
    expect(
      await check({
        ".claude/agents/a.md":
          "---\nname: a\ndescription: d\ntools: Read, Glob, Grep, Agent, Task, mcp__lean-lsp__lean_goal, mcp__x__*\n---\n",
        ".claude/commands/c.md":
          "---\ndescription: d\nallowed-tools: Bash(git add:*), Bash(jq, sed), Read(specs/*), Skill(x), WebFetch(domain:a.b)\n---\n",
        ".claude/skills/s/SKILL.md": "---\nname: s\ndescription: d\nallowed-tools: [Read, TodoWrite]\n---\n",
      }),
    ).toEqual([]);
  });
});
