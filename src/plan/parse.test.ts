import { describe, expect, it } from "vitest";
import { parsePlan } from "./parse.js";
import type { Plan } from "./plan-types.js";

function plan(text: string): Plan {
  const result = parsePlan("plan.md", text);
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  return result.plan;
}

const STYLE_A = `# Implementation Plan: Task #981

- **Task**: 981 - remove_axiom
- **Status**: [PARTIAL] - Resume at Phase 3
- **Dependencies**: None (builds on existing codebase)

## Implementation Phases

### Phase 0: Standards [COMPLETED]

- **Dependencies:** None
- [x] done
- [ ] open
  - [X] nested done

### Phase 2: Second [IN PROGRESS]

- **Dependencies**: Phase 0

**Tasks:**
- [ ] a

#### Phase 2a: Sub step [PARTIAL - AXIOMATIZED]

- **Dependencies:** Phase 0, Phase 2, Task 970 Phase 7 (other task)

## Phase 5: Legacy heading without marker

**Dependencies**: Phases 2 and 2a
\`\`\`markdown
### Phase 9: Inside a fence [NOT STARTED]
- [ ] not counted
\`\`\`

## Testing & Validation
- [ ] not in any phase
`;

const STYLE_B = `# Fix Plan

## Metadata
- **Date**: 2025-12-10
- **Status**: [IN PROGRESS]

## Implementation Phases

### Phase 0: Standards Revision [COMPLETE]
dependencies: []

- [x] one

### Phase 1: Foundation [NOT STARTED]
implementer: lean
lean_file: /abs/A.lean, /abs/B.lean
dependencies: [0]

- [ ] Task
  - [ ] nested

### Phase 4: Later
implementer: software
dependencies: [0, 1]
`;

describe("parsePlan, style A", () => {
  const p = plan(STYLE_A);

  it("reads headings of depth 2-4, numbers from 0 with gaps and letter suffixes, markers optional", () => {
    expect(p.phases.map((x) => [x.id, x.depth, x.line, x.name, x.marker, x.status])).toEqual([
      ["0", 3, 9, "Standards", "COMPLETED", "complete"],
      ["2", 3, 16, "Second", "IN PROGRESS", "in_progress"],
      ["2a", 4, 23, "Sub step", "PARTIAL - AXIOMATIZED", "partial"],
      ["5", 2, 27, "Legacy heading without marker", null, null],
    ]);
  });

  it("reads both Dependencies spellings inside each phase, ignoring other tasks' phases", () => {
    expect(p.phases.map((x) => x.dependencies)).toEqual([[], ["0"], ["0", "2"], ["2", "2a"]]);
    expect(p.phases.map((x) => x.dependenciesLine)).toEqual([11, 18, 25, 29]);
  });

  it("counts checkboxes per phase (nested included, fenced and later sections not)", () => {
    expect(p.phases.map((x) => x.checkboxes)).toEqual([
      { done: 2, total: 3 },
      { done: 0, total: 1 },
      { done: 0, total: 0 },
      { done: 0, total: 0 },
    ]);
    expect(p.phases[3]?.endLine).toBe(34);
  });

  it("reads the first metadata Status line and its title", () => {
    expect(p.style).toBe("task");
    expect(p.phases.every((x) => !x.carried)).toBe(true);
    expect(p.title).toBe("Implementation Plan: Task #981");
    expect(p.status).toEqual({ marker: "PARTIAL", status: "partial", line: 4 });
  });
});

describe("parsePlan, style B", () => {
  const p = plan(STYLE_B);

  it("reads implementer, lean_file and line-form dependencies under the heading", () => {
    expect(p.style).toBe("hard-barrier");
    expect(p.status).toEqual({ marker: "IN PROGRESS", status: "in_progress", line: 5 });
    expect(p.phases.map((x) => [x.id, x.status, x.implementer, x.leanFiles, x.dependencies])).toEqual([
      ["0", "complete", null, [], []],
      ["1", "not_started", "lean", ["/abs/A.lean", "/abs/B.lean"], ["0"]],
      ["4", null, "software", [], ["0", "1"]],
    ]);
    expect(p.phases.map((x) => x.checkboxes)).toEqual([
      { done: 1, total: 1 },
      { done: 0, total: 2 },
      { done: 0, total: 0 },
    ]);
  });

  it("reads dependencies of each phase from its own block, not the first in the file", () => {
    const text = "## Phase 1: A\ndependencies: []\n\n## Phase 2: B\n\n## Phase 3: C\ndependencies: [2]\n";
    expect(plan(text).phases.map((x) => x.dependencies)).toEqual([[], [], ["2"]]);
  });
});

describe("parsePlan problems", () => {
  it("collects every problem with its line", () => {
    const text = [
      "# Plan", // 1
      "", // 2
      "### Phase 1: A [NOT STARTED]", // 3
      "dependencies: [7]", // 4
      "", // 5
      "### Phase 2: B [NOT STARTED]", // 6
      "- **Dependencies:** soon", // 7
      "", // 8
      "### Phase 1: Again [NOT STARTED]", // 9
      "dependencies: [x, 1]", // 10
      "### Phase 3: C [BLOCKED]", // 11
      "- **Dependencies:** Phase 3", // 12
    ].join("\n");
    const result = parsePlan("p.md", text);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems).toEqual([
      { line: 4, message: "Phase 1 depends on Phase 7, which is not in the plan" },
      { line: 7, message: 'Phase 2: cannot read dependencies "soon" (expected None, Phase N, … or [N, N])' },
      {
        line: 10,
        message: 'Phase 1: cannot read dependencies "[x, 1]" (expected None, Phase N, … or [N, N])',
      },
      { line: 12, message: "Phase 3 depends on itself" },
    ]);
    expect(result.warnings).toEqual([
      { line: 9, message: "Phase 1 is defined twice (lines 3 and 9); the first definition counts" },
    ]);
    expect(result.partial.phases).toHaveLength(4);
    expect(result.partial.duplicates).toEqual(["1"]);
  });

  it("reports a plan without phases", () => {
    expect(parsePlan("p.md", "# Plan\n\n## Overview\n")).toEqual({
      ok: false,
      problems: [{ line: 1, message: "no phases: expected headings like `### Phase 1: Name [NOT STARTED]`" }],
      warnings: [],
      partial: { path: "p.md", title: "Plan", style: "task", status: null, phases: [], duplicates: [] },
    });
  });
});
