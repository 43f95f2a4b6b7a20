import { describe, expect, it } from "vitest";
import { setPhaseMarker, tickPhaseCheckboxes } from "./edit.js";
import { parsePlan } from "./parse.js";

const ids = (text: string) => {
  const result = parsePlan("plan.md", text);
  return (result.ok ? result.plan : result.partial).phases.map((p) => p.id);
};
const problems = (text: string) => {
  const result = parsePlan("plan.md", text);
  return result.ok ? [] : result.problems;
};
const phases = (...lines: string[]) => `# Plan\n\n## Implementation Phases\n\n${lines.join("\n\n")}\n`;

describe("plans read as CommonMark", () => {
  it("reads every phase after a line holding a code span of four backticks around three (ModelChecker 164)", () => {
    const text = phases(
      "### Phase 1: Diagrams [NOT STARTED]",
      "```` ```mermaid ```` blocks render as diagrams; so does `~~~`.",
      "### Phase 2: Docs [NOT STARTED]",
      "### Phase 3: Tests [NOT STARTED]",
    );
    expect(ids(text)).toEqual(["1", "2", "3"]);
  });

  it("knows a fence from a line that only looks like one", () => {
    // Indented four spaces: code, not a fence, so what follows is not inside one.
    expect(ids(phases("### Phase 1: A [NOT STARTED]", "    ```", "### Phase 2: B [NOT STARTED]"))).toEqual([
      "1",
      "2",
    ]);
    // A fence opened in a list item closes with the item.
    expect(
      ids(
        phases("### Phase 1: A [NOT STARTED]", "- step\n\n  ```bash\n  make", "### Phase 2: B [NOT STARTED]"),
      ),
    ).toEqual(["1", "2"]);
    // A tilde fence is not closed by backticks; the heading inside it is quoted, not a phase.
    expect(
      ids(
        phases(
          "### Phase 1: A [NOT STARTED]",
          "~~~\n```\n### Phase 9: Template [NOT STARTED]\n~~~",
          "### Phase 2: B",
        ),
      ),
    ).toEqual(["1", "2"]);
  });

  it("does not read a heading in HTML, a block quote or a list item as a phase", () => {
    const text = phases(
      "### Phase 1: A [NOT STARTED]",
      "<details>\n### Phase 7: In HTML [NOT STARTED]\n</details>",
      "> ### Phase 8: Quoted [NOT STARTED]",
      "- item\n  ### Phase 9: In a list [NOT STARTED]",
      "### Phase 2: B [NOT STARTED]",
    );
    expect(ids(text)).toEqual(["1", "2"]);
  });

  it("reads the phase headings real plans write", () => {
    const text = phases(
      "### Phase -1: Backup [COMPLETED]",
      "### Phase 3B (Contingency): Deferral Approach [NOT STARTED]",
      "### Phase A: Resurrect [COMPLETED]",
      "### Phase CF-1: Syntax (2-3 hours)",
      "### Phase 4C-fix: Symmetric Fix [COMPLETED]",
      "### Phase 5 [COMPLETED]: Quick Reference Materials",
      "### Phase 6: Prove No Endpoints [NOT STARTED] (NOW UNBLOCKED)",
      "### Phase 7: Validate alignment [COMPLETED] [PASS]",
      "### Phase 8 [COMPLETED]",
      "  ### Phase 9: Indented three spaces at most ###",
    );
    const result = parsePlan("plan.md", text);
    expect(result.ok).toBe(true);
    const plan = result.ok ? result.plan : result.partial;
    expect(plan.phases.map((p) => [p.id, p.status])).toEqual([
      ["-1", "complete"],
      ["3B", "not_started"],
      ["A", "complete"],
      ["CF-1", null],
      ["4C-fix", "complete"],
      ["5", "complete"],
      ["6", "not_started"],
      ["7", "complete"],
      ["8", "complete"],
      ["9", null],
    ]);
    expect(plan.phases[1]?.name).toBe("(Contingency) Deferral Approach");
    expect(plan.phases[6]?.name).toBe("Prove No Endpoints (NOW UNBLOCKED)");
    expect(plan.phases[7]?.name).toBe("Validate alignment [PASS]");
  });

  it("leaves sections about phases and the document's title alone", () => {
    const text = `# Phase 3: Expanded phase file\n\n${phases(
      "### Phase 1: A [COMPLETED]",
      "### Phase 2: B [NOT STARTED]",
    )}\n## Rollback\n\n### Phase 1 Rollback [COMPLETE]\n\n### Phase 2 (Blocks 1-3)\n\n### Phase Dependencies\n\n### Phase 3\n`;
    expect(problems(text)).toEqual([]);
    expect(ids(text)).toEqual(["1", "2"]);
  });

  it("reads phases carried without a marker as still to do", () => {
    const result = parsePlan(
      "plan.md",
      phases("### Phase 0-5: [COMPLETED]", "### Phase 6: Next [NOT STARTED]", "### Phases 7-8: Same as v005"),
    );
    const plan = result.ok ? result.plan : result.partial;
    expect(plan.phases.map((p) => [p.id, p.carried, p.status])).toEqual([
      ...["0", "1", "2", "3", "4", "5"].map((id) => [id, true, "complete"]),
      ["6", false, "not_started"],
      ["7", true, null],
      ["8", true, null],
    ]);
  });

  it("names a phase a code block swallowed because its fences do not pair as the author meant", () => {
    const text = phases(
      "### Phase 1: A [COMPLETED]",
      "```markdown\n# Template\n```bash\nmake\n```\n\n## Step\n\n```",
      "### Phase 2: B [NOT STARTED]",
      "```bash\nmake test\n```",
      "### Phase 3: C [NOT STARTED]",
    );
    const found = problems(text);
    expect(found.map((p) => [p.code, p.line])).toEqual([["PLAN_UNREADABLE", 17]]);
    expect(found[0]?.message).toContain("opens at line 15");
    // The same template behind a longer outer fence nests as written: nothing swallowed.
    const nested = text.replace("```markdown", "````markdown").replace("## Step\n\n```", "## Step\n\n````");
    expect(problems(nested)).toEqual([]);
    expect(ids(nested)).toEqual(["1", "2", "3"]);
  });

  it("names a phase heading Baton cannot read instead of leaving the phase out", () => {
    const found = problems(phases("### Phase 1: A [NOT STARTED]", "##### Phase 2: Too deep [NOT STARTED]"));
    expect(found.map((p) => [p.code, p.line])).toEqual([["PLAN_UNREADABLE", 7]]);
  });

  it("edits a marker among several and ticks no checkbox inside code", () => {
    const text = phases(
      "### Phase 1: A [NOT STARTED] [PASS] ###",
      "- [ ] real\n\n```\n- [ ] quoted\n```\n\n    - [ ] indented code",
    );
    const set = setPhaseMarker(text, "1", "COMPLETED");
    expect(set.ok && set.text).toContain("### Phase 1: A [COMPLETED] [PASS] ###");
    const ticked = tickPhaseCheckboxes(text, "1");
    expect(ticked).toContain("- [x] real");
    expect(ticked).toContain("- [ ] quoted");
    expect(ticked).toContain("    - [ ] indented code");
  });
});
