import { describe, expect, it } from "vitest";
import { modelFromTexts } from "../../../../test/support/lint-model.js";
import { nonstandardYaml } from "./nonstandard-yaml.js";

const check = (files: Record<string, string>) => nonstandardYaml.check(modelFromTexts(files));

describe("frontmatter/nonstandard-yaml", () => {
  it("points at the value to quote, not at values the fallback quotes needlessly", async () => {
    const findings = await check({
      ".claude/commands/review.md":
        "---\ndescription: Review\nallowed-tools: Read, Bash(git:*), mcp__lean__*\nargument-hint: [SCOPE] [--create-tasks]\n---\n",
    });
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({ line: 4, column: 16, severity: "warning" });
    expect(findings[0]!.hint).toBe('Quote the value: `argument-hint: "[SCOPE] [--create-tasks]"`.');
  });

  it("passes quoted values and valid flow lists", async () => {
    expect(
      await check({
        ".claude/commands/a.md": '---\ndescription: d\nargument-hint: "[SCOPE] [--create-tasks]"\n---\n',
        ".claude/commands/b.md": "---\ndescription: d\nargument-hint: [N]\n---\n",
      }),
    ).toEqual([]);
  });
});
