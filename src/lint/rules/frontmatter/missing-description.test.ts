import { describe, expect, it } from "vitest";
import { modelFromTexts } from "../../../../test/support/lint-model.js";
import { missingDescription } from "./missing-description.js";

const check = (files: Record<string, string>) => missingDescription.check(modelFromTexts(files));

describe("frontmatter/missing-description", () => {
  it("warns about commands without a description", async () => {
    const findings = await check({
      ".claude/commands/a.md": "# /a\n",
      ".claude/commands/b.md": "---\nargument-hint: N\n---\n",
    });
    expect(findings.map((f) => [f.file, f.severity])).toEqual([
      [".claude/commands/a.md", "warning"],
      [".claude/commands/b.md", "warning"],
    ]);
  });

  it("passes described commands and `.sh` commands", async () => {
    expect(
      await check({
        ".claude/commands/a.md": "---\ndescription: d\n---\n",
        ".claude/commands/a.sh": "echo\n",
      }),
    ).toEqual([]);
  });
});
