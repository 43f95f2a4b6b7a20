import { describe, expect, it } from "vitest";
import { parsePlan } from "./parse.js";
import type { ParseResult } from "./plan-types.js";
import { computeWaves } from "./waves.js";

function ok(text: string): Extract<ParseResult, { ok: true }> {
  const result = parsePlan("plan.md", text);
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  return result;
}

const lines = (...rows: string[]) => rows.join("\n");

describe("carried phases (range summary headings of revised plans)", () => {
  const text = lines(
    "# Implementation Plan: Task #9 (v3)", // 1
    "", // 2
    "- **Status**: [IMPLEMENTING]", // 3
    "", // 4
    "## Implementation Phases", // 5
    "", // 6
    "### Phases 1-3: [COMPLETED in v1]", // 7
    "", // 8
    "- [x] summary box, not a phase's own", // 9
    "", // 10
    "### Phase 4: Next [NOT STARTED]", // 11
    "", // 12
    "- **Dependencies:** Phases 1-3 (completed)", // 13
    "", // 14
    "### Phases 5-6: Kept [COMPLETED]", // 15
    "### Phase 7: Last [NOT STARTED]", // 16
    "- **Dependencies:** Phase 6, Phase 4", // 17
  );
  const { plan, warnings } = ok(text);

  it("reads one phase per number of the range, with the heading's line, name and status", () => {
    expect(plan.phases.map((p) => [p.id, p.carried, p.line, p.endLine, p.name, p.marker, p.status])).toEqual([
      ["1", true, 7, 10, "Phases 1-3", "COMPLETED in v1", "complete"],
      ["2", true, 7, 10, "Phases 1-3", "COMPLETED in v1", "complete"],
      ["3", true, 7, 10, "Phases 1-3", "COMPLETED in v1", "complete"],
      ["4", false, 11, 14, "Next", "NOT STARTED", "not_started"],
      ["5", true, 15, 15, "Kept", "COMPLETED", "complete"],
      ["6", true, 15, 15, "Kept", "COMPLETED", "complete"],
      ["7", false, 16, 17, "Last", "NOT STARTED", "not_started"],
    ]);
    expect(plan.phases.filter((p) => p.carried).every((p) => p.checkboxes.total === 0)).toBe(true);
    expect(warnings).toEqual([]);
  });

  it("lets dependencies on them resolve, so waves compute", () => {
    expect(plan.phases.map((p) => p.dependencies)).toEqual([[], [], [], ["1", "2", "3"], [], [], ["6", "4"]]);
    expect(computeWaves(plan.phases)).toEqual({ ok: true, waves: [["1", "2", "3", "5", "6"], ["4"], ["7"]] });
  });

  it("needs a marker: range headings without one are section titles", () => {
    const text = lines(
      "## Phases Completed",
      "### Phases 7-10 Are Out of Main Build Scope",
      "### Phase 1: Only [NOT STARTED]",
    );
    expect(ok(text).plan.phases.map((p) => p.id)).toEqual(["1"]);
  });
});

describe("dependencies qualified as completed", () => {
  it("drops a group naming the phase itself or missing phases, as a whole, with a warning", () => {
    const text = lines(
      "### Phase 1: Retry [BLOCKED]", // 1
      "- **Dependencies:** Phases 1-5 completed", // 2
      "### Phase 2: Then [NOT STARTED]", // 3
      "- **Dependencies:** Phase 1, Phase 9 (done)", // 4
      "### Phase 3: End [NOT STARTED]", // 5
      "- **Dependencies:** Phase 2 (completed), Phase 1 [COMPLETED]", // 6
    );
    const { plan, warnings } = ok(text);
    // Keeping 2 and 3 of `Phases 1-5` would make Phase 1 depend on its successors.
    expect(plan.phases.map((p) => p.dependencies)).toEqual([[], ["1"], ["2", "1"]]);
    expect(warnings).toEqual([
      {
        line: 2,
        message:
          'Phase 1: "Phases 1-5 completed" refers to an earlier plan version (Phase 1 is itself; Phases 4, 5 are not in this plan); not a dependency',
      },
      {
        line: 4,
        message:
          'Phase 2: "Phase 9 (done)" refers to an earlier plan version (Phase 9 is not in this plan); not a dependency',
      },
    ]);
    expect(computeWaves(plan.phases)).toEqual({ ok: true, waves: [["1"], ["2"], ["3"]] });
  });

  it("keeps unqualified missing and self references as problems", () => {
    const result = parsePlan(
      "p.md",
      lines(
        "### Phase 1: A",
        "- **Dependencies:** Phase 1",
        "### Phase 2: B",
        "- **Dependencies:** Phases 1-3",
      ),
    );
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems.map((p) => p.message)).toEqual([
      "Phase 1 depends on itself",
      "Phase 2 depends on itself",
      "Phase 2 depends on Phase 3, which is not in the plan",
    ]);
    expect(result.warnings).toEqual([]);
  });
});

describe("duplicate phase ids", () => {
  it("warns naming both lines and lists the id; the first definition counts", () => {
    const text = lines(
      "### Phase 1: A [COMPLETED]", // 1
      "### Phase 2: Draft [NOT STARTED]", // 2
      "- **Dependencies:** Phase 1", // 3
      "### Phase 2: Final [COMPLETED]", // 4
      "- **Dependencies:** Phase 9", // 5: read, but waves use the first definition
    );
    const result = parsePlan("p.md", text);
    // The second definition's missing Phase 9 is still a problem: only the id is forgiven, not its content.
    expect(result.ok).toBe(false);
    expect(result.warnings).toEqual([
      { line: 4, message: "Phase 2 is defined twice (lines 2 and 4); the first definition counts" },
    ]);
    const clean = ok(text.replace("Phase 9", "Phase 1"));
    expect(clean.plan.duplicates).toEqual(["2"]);
    expect(computeWaves(clean.plan.phases)).toEqual({ ok: true, waves: [["1"], ["2"]] });
  });
});

describe("plan style", () => {
  const style = (text: string) => {
    const result = parsePlan("p.md", text);
    return result.ok ? result.plan.style : result.partial.style;
  };
  it.each([
    ["a `## Metadata` section", "# P\n\n## Metadata\n- **Date**: x\n\n### Phase 1: A [NOT STARTED]\n"],
    ["a dependencies: line", "### Phase 1: A [NOT STARTED]\ndependencies: []\n"],
    ["an implementer: line", "### Phase 1: A [NOT STARTED]\nimplementer: software\n"],
    ["a lean_file: line", "### Phase 1: A [NOT STARTED]\nlean_file: /a.lean\n"],
    ["a [COMPLETE] phase marker", "### Phase 1: A [COMPLETE]\n"],
    ["a [COMPLETE] plan status", "- **Status**: [COMPLETE]\n\n### Phase 1: A\n"],
  ])("is hard-barrier with %s", (_, text) => {
    expect(style(text)).toBe("hard-barrier");
  });

  it.each([
    [
      "task-system markers",
      "- **Status**: [COMPLETED]\n\n### Phase 1: A [COMPLETED]\n- **Dependencies:** None\n",
    ],
    [
      "style-B lines only inside a fence",
      "### Phase 1: A [NOT STARTED]\n```\ndependencies: [0]\n## Metadata\n```\n",
    ],
    ["a legacy heading without marker", "## Phase 1: A\n\n**Dependencies**: None\n"],
  ])("is task with %s", (_, text) => {
    expect(style(text)).toBe("task");
  });
});
