import { describe, expect, it } from "vitest";
import { modelFromTexts } from "../../../../test/support/lint-model.js";
import { missingFile } from "./missing-file.js";

const check = (files: Record<string, string>, existing: string[] = []) =>
  missingFile.check(modelFromTexts(files, { existing }));

describe("references/missing-file", () => {
  it("reports @-mentions of files that do not exist", async () => {
    const findings = await check({
      ".claude/CLAUDE.md": "See @.claude/context/gone.md and @specs/ROADMAP.md.\n",
      ".claude/commands/c.md": "---\ndescription: d\n---\nLoad @.claude/command/review.md first.\n",
    });
    expect(findings.map((f) => [f.file, f.line, f.column, f.message])).toEqual([
      [".claude/CLAUDE.md", 1, 5, "`@.claude/context/gone.md` does not exist"],
      [".claude/CLAUDE.md", 1, 34, "`@specs/ROADMAP.md` does not exist"],
      [".claude/commands/c.md", 4, 6, "`@.claude/command/review.md` does not exist"],
    ]);
  });

  it("passes existing files, emails, npm scopes, decorators, templates and code fences", async () => {
    const findings = await check(
      {
        ".claude/context/a.md": "",
        ".claude/context/b.md": [
          "Read @.claude/context/a.md, @specs/TODO.md and @./a.md (next to this file).",
          "Mail ops@example.com; install @types/node and @preview/cetz:0.2.0; use @Override.",
          // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell variable, written as the hook or doc would
          "Reports go to @specs/{N}_{SLUG}/reports/ and @specs/${dir}/x.md.",
          "Change @.claude/ to @.opencode/ everywhere.",
          "```",
          "cat @.claude/context/missing.md",
          "```",
        ].join("\n"),
      },
      ["specs/TODO.md"],
    );
    expect(findings).toEqual([]);
  });
});
