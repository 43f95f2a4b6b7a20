import { describe, expect, it } from "vitest";
import { modelFromTexts } from "../../test/support/lint-model.js";
import { bodyLines } from "./markdown-body.js";

/** An agent file with this body, read by lint's own model (frontmatter and all). */
const file = (body: string[]) =>
  modelFromTexts({ ".claude/agents/a.md": ["---", "name: a", "---", ...body].join("\n") }).files[0]!;

const fenced = (body: string[]) =>
  bodyLines(file(body))
    .filter((l) => l.inFence)
    .map((l) => l.line);

describe("an agent file's body read as CommonMark", () => {
  it("knows a code span of four backticks from a fence, so the instructions after it are read", () => {
    expect(
      fenced(["```` ```bash ```` blocks are run as written.", "", "Update specs/state.json directly."]),
    ).toEqual([]);
  });

  it("counts a fence in a list item only up to the item's end, and a quote as text", () => {
    const body = [
      "- run:",
      "",
      "  ```bash",
      "  make",
      "",
      "Then write specs/TODO.md.",
      "",
      "> quoted instruction",
    ];
    expect(fenced(body)).toEqual([6, 7]);
  });

  it("gives a code block the caption before it", () => {
    const lines = bodyLines(file(["**Wrong**:", "", "```", "jq . specs/state.json", "```"]));
    expect(lines.find((l) => l.text.startsWith("jq"))?.fenceCaption).toBe("**Wrong**:");
  });
});
