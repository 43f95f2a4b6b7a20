import { describe, expect, it } from "vitest";
import { modelFromTexts } from "../../../../test/support/lint-model.js";
import { invalidYaml } from "./invalid-yaml.js";

const check = (files: Record<string, string>) => invalidYaml.check(modelFromTexts(files));

describe("frontmatter/invalid-yaml", () => {
  it("reports the YAML error's position and that Claude Code skips the agent", async () => {
    const findings = await check({
      ".claude/agents/a.md": "---\nname: a\ndescription: x\n  - y: [\n---\nBody\n",
    });
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({
      rule: "frontmatter/invalid-yaml",
      severity: "error",
      file: ".claude/agents/a.md",
    });
    expect(findings[0]!.line).toBeGreaterThanOrEqual(3);
    expect(findings[0]!.message).toContain("silently skips this agent");
  });

  it("reports an unclosed block", async () => {
    const findings = await check({ ".claude/skills/s/SKILL.md": "---\nname: s\ndescription: d\n" });
    expect(findings[0]!.message).toContain("no closing");
  });

  it("passes valid YAML, and YAML only Claude Code's fallback reads (nonstandard-yaml's case)", async () => {
    expect(
      await check({
        ".claude/agents/a.md": "---\nname: a\ndescription: 'x: y'\n---\n",
        ".claude/commands/c.md": "---\ndescription: d\nargument-hint: [N] [--dry-run]\n---\n",
      }),
    ).toEqual([]);
  });
});
