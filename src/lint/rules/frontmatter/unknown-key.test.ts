import { describe, expect, it } from "vitest";
import { modelFromTexts } from "../../../../test/support/lint-model.js";
import { unknownKey } from "./unknown-key.js";

const check = (files: Record<string, string>) => unknownKey.check(modelFromTexts(files));

describe("frontmatter/unknown-key", () => {
  it("warns about keys Claude Code ignores, suggesting the likely one", async () => {
    const findings = await check({
      ".claude/commands/c.md": "---\ndescription: d\nallowed_tools: Read\n---\n",
      ".claude/agents/a.md": "---\nname: a\ndescription: d\nowner: me\n---\n",
    });
    expect(findings.map((f) => [f.file, f.line, f.hint.split(".")[0]])).toEqual(
      [
        [
          ".claude/agents/a.md",
          4,
          "Known keys: name, description, tools, disallowedTools, model, permissionMode, color, skills, mcpServers, hooks, memory, maxTurns, background, effort, initialPrompt, isolation, omitClaudeMd",
        ],
        [".claude/commands/c.md", 3, "Did you mean `allowed-tools`?"],
      ].sort(),
    );
  });

  it("passes the documented keys of each kind, and opencode's own", async () => {
    expect(
      await check({
        ".claude/agents/a.md":
          "---\nname: a\ndescription: d\ntools: Read\nmodel: haiku\ncolor: blue\nmaxTurns: 3\n---\n",
        ".claude/commands/c.md":
          "---\ndescription: d\nargument-hint: N\nallowed-tools: Read\nmodel: opus\n---\n",
        ".claude/skills/s/SKILL.md":
          "---\nname: s\ndescription: d\nlicense: MIT\nuser-invocable: false\n---\n",
        ".opencode/agent/o.md": "---\ndescription: d\nmode: subagent\ntemperature: 0.1\n---\n",
      }),
    ).toEqual([]);
  });
});
