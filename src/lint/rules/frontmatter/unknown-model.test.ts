import { describe, expect, it } from "vitest";
import { modelFromTexts } from "../../../../test/support/lint-model.js";
import { unknownModel } from "./unknown-model.js";

const agent = (model: string) => `---\nname: a\ndescription: d\nmodel: ${model}\n---\n`;
const check = (files: Record<string, string>) => unknownModel.check(modelFromTexts(files));

describe("frontmatter/unknown-model", () => {
  it("reports models Claude Code cannot resolve", async () => {
    const findings = await check({
      ".claude/agents/a.md": agent("gpt-4"),
      ".claude/agents/b.md": agent("claude-sonet-4"),
    });
    expect(findings.map((f) => [f.file, f.line, f.column, f.severity])).toEqual([
      [".claude/agents/a.md", 4, 8, "error"],
      [".claude/agents/b.md", 4, 8, "error"],
    ]);
  });

  it("passes aliases, full ids and opencode's provider/model", async () => {
    const ok = [
      "sonnet",
      "opus",
      "haiku",
      "fable",
      "inherit",
      "sonnet[1m]",
      "claude-opus-4-5-20251101",
      "claude-3-5-sonnet-20241022",
      "claude-haiku-5-5",
    ];
    const files = Object.fromEntries(ok.map((m, i) => [`.claude/agents/a${i}.md`, agent(m)]));
    files[".opencode/agent/o.md"] = "---\ndescription: d\nmodel: anthropic/claude-sonnet-4-5\n---\n";
    expect(await check(files)).toEqual([]);
  });
});
