import { describe, expect, it } from "vitest";
import { fails, ok, okJson, repo, write } from "./helpers.js";

const PLAN = `# Implementation Plan: Task #1

- **Task**: 1 - add_parser
- **Status**: [IN PROGRESS]

## Implementation Phases

### Phase 1: Parse [COMPLETED]

- **Dependencies:** None
- [x] parser

### Phase 2: Waves [NOT STARTED]

- **Dependencies:** Phase 1
- [ ] waves
  - [x] nested

### Phase 3: Docs [NOT STARTED]

- **Dependencies**: Phase 1
`;

function withPlan(text: string): string {
  const dir = repo();
  ok(dir, ["task", "add", "Add parser"]);
  write(dir, "1_add_parser/plans/implementation-001.md", "# Old\n\n### Phase 1: Old [NOT STARTED]\n");
  write(dir, "1_add_parser/plans/implementation-002.md", text);
  return dir;
}

describe("baton plan show", () => {
  it("prints phases, checkboxes and waves of the latest plan in the task folder", () => {
    const dir = withPlan(PLAN);
    const out = ok(dir, ["plan", "show", "1"]).stdout;
    expect(out).toContain("specs/1_add_parser/plans/implementation-002.md");
    expect(out).toContain("  2. Waves [NOT STARTED]  depends on: 1  checkboxes: 1/2");
    expect(out).toContain("  Wave 1: 1\n  Wave 2: 2, 3");
    expect(ok(dir, ["plan-show", "1"]).stdout).toBe(out);
  });

  it("prints JSON", () => {
    const view = okJson(withPlan(PLAN), ["plan-show", "1"]);
    expect(view.ok).toBe(true);
    expect(view.status).toEqual({ marker: "IN PROGRESS", status: "in_progress", line: 4 });
    expect(view.waves).toEqual([["1"], ["2", "3"]]);
    expect(view.phases.map((p: { status: string }) => p.status)).toEqual([
      "complete",
      "not_started",
      "not_started",
    ]);
  });

  it("exits 1 and names the lines of a malformed plan", () => {
    const dir = withPlan(PLAN.replace("- **Dependencies**: Phase 1", "- **Dependencies**: Phase 9"));
    const result = fails(dir, ["plan", "show", "1"]);
    expect(result.stdout).toContain(
      "specs/1_add_parser/plans/implementation-002.md:21: Phase 3 depends on Phase 9, which is not in the plan",
    );
  });

  it("refuses a task without a plan", () => {
    const dir = repo();
    ok(dir, ["task", "add", "Add parser"]);
    expect(fails(dir, ["plan-show", "1"], 2).stderr).toContain("task 1 has no plan");
  });
});
