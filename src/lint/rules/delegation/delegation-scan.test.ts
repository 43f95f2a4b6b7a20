import { describe, expect, it } from "vitest";
import { modelFromTexts } from "../../../../test/support/lint-model.js";
import { textLines } from "./delegation-scan.js";

/** A command file of these lines, read by lint's own model. */
const file = (lines: string[]) => modelFromTexts({ ".claude/commands/c.md": lines.join("\n") }).files[0]!;

const code = (lines: string[]) =>
  textLines(file(lines))
    .filter((l) => l.code)
    .map((l) => [l.line, l.lang]);

describe("lines of a Markdown file tagged code or prose, as CommonMark reads them", () => {
  it("opens no block at a code span of four backticks, so the prose after it stays prose", () => {
    expect(
      code(["```` ```bash ```` blocks run as written:", "", "jq '.x = 1' specs/state.json > tmp"]),
    ).toEqual([]);
  });

  it("ends a fence in a list item with the item, and counts an indented block as code", () => {
    const lines = [
      "- run:",
      "",
      "  ```bash",
      "  make",
      "",
      "The state is in specs/state.json.",
      "",
      "    jq . x.json",
    ];
    expect(code(lines)).toEqual([
      [4, "bash"],
      [8, ""],
    ]);
  });

  it("tags the fence lines as fences and what they hold as code", () => {
    const tagged = textLines(file(["```bash", "echo hi", "```"]));
    expect(tagged.map((l) => [l.fence, l.code, l.block])).toEqual([
      [true, false, 0],
      [false, true, 0],
      [true, false, 0],
    ]);
  });
});
