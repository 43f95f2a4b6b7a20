import { describe, expect, it } from "vitest";
import { doneMarker, planStatusMarker, setPhaseMarker, setPlanStatus, tickPhaseCheckboxes } from "./edit.js";
import { parsePlan } from "./parse.js";
import type { Plan } from "./plan-types.js";

function plan(text: string): Plan {
  const result = parsePlan("plan.md", text);
  return result.ok ? result.plan : result.partial;
}

/** Lines that differ, as [1-based line, before, after]; the edits never add or remove lines. */
function changedLines(before: string, after: string): [number, string, string][] {
  const a = before.split("\n");
  const b = after.split("\n");
  expect(b).toHaveLength(a.length);
  return a.flatMap((line, i) =>
    line === b[i] ? [] : [[i + 1, line, b[i] ?? ""] as [number, string, string]],
  );
}

const TASK_PLAN = [
  "# Implementation Plan: Task #5", // 1
  "", // 2
  "- **Task**: 5 - demo", // 3
  "- **Status**: [PARTIAL] - Resume at Phase 2", // 4
  "", // 5
  "## Implementation Phases", // 6
  "", // 7
  "### Phases 1-2: [COMPLETED in v1]", // 8
  "- [ ] carried box", // 9
  "", // 10
  "### Phase 3: Parse  [NOT STARTED]", // 11
  "", // 12
  "- **Dependencies:** Phases 1-2 (completed)", // 13
  "- [ ] top", // 14
  "  - [ ] nested", // 15
  "  - [x] done already", // 16
  "```markdown", // 17
  "### Phase 9: Quoted [NOT STARTED]", // 18
  "- [ ] fenced box", // 19
  "```", // 20
  "", // 21
  "## Phase 4: Legacy heading", // 22
  "- [ ] legacy box", // 23
  "", // 24
  "### Phase 3: Again [NOT STARTED]", // 25
  "- [ ] second definition", // 26
  "", // 27
  "## Testing & Validation", // 28
  "- [ ] not a phase box", // 29
  "",
].join("\n");

describe("doneMarker and planStatusMarker", () => {
  it("names done per style", () => {
    expect(doneMarker("task")).toBe("COMPLETED");
    expect(doneMarker("hard-barrier")).toBe("COMPLETE");
  });

  it.each([
    ["in_progress", "IMPLEMENTING", "IN PROGRESS"],
    ["complete", "COMPLETED", "COMPLETE"],
    ["partial", "PARTIAL", "IN PROGRESS"],
    ["blocked", "BLOCKED", "BLOCKED"],
  ] as const)("maps %s", (outcome, task, hardBarrier) => {
    expect(planStatusMarker("task", outcome)).toBe(task);
    expect(planStatusMarker("hard-barrier", outcome)).toBe(hardBarrier);
  });
});

describe("setPhaseMarker", () => {
  it("replaces the marker of the first definition only, keeping the rest of the line", () => {
    const result = setPhaseMarker(TASK_PLAN, "3", "IN PROGRESS");
    if (!result.ok) throw new Error(result.reason);
    expect(result.changed).toBe(true);
    expect(changedLines(TASK_PLAN, result.text)).toEqual([
      [11, "### Phase 3: Parse  [NOT STARTED]", "### Phase 3: Parse  [IN PROGRESS]"],
    ]);
    const after = plan(result.text);
    expect(after.phases.map((p) => [p.id, p.line, p.marker])).toEqual(
      plan(TASK_PLAN).phases.map((p) => [p.id, p.line, p.line === 11 ? "IN PROGRESS" : p.marker]),
    );
  });

  it("appends a marker to a legacy heading without one", () => {
    const result = setPhaseMarker(TASK_PLAN, "4", "COMPLETED");
    if (!result.ok) throw new Error(result.reason);
    expect(changedLines(TASK_PLAN, result.text)).toEqual([
      [22, "## Phase 4: Legacy heading", "## Phase 4: Legacy heading [COMPLETED]"],
    ]);
    expect(plan(result.text).phases.find((p) => p.id === "4")).toMatchObject({
      name: "Legacy heading",
      marker: "COMPLETED",
      status: "complete",
    });
  });

  it("leaves the text alone when the marker is already set", () => {
    expect(setPhaseMarker(TASK_PLAN, "3", "NOT STARTED")).toEqual({
      ok: true,
      text: TASK_PLAN,
      changed: false,
    });
  });

  it("refuses unknown, fenced and carried phases and invalid markers, without throwing", () => {
    expect(setPhaseMarker(TASK_PLAN, "7", "COMPLETED")).toEqual({
      ok: false,
      reason: "Phase 7 is not in the plan",
    });
    expect(setPhaseMarker(TASK_PLAN, "9", "COMPLETED")).toEqual({
      ok: false,
      reason: "Phase 9 is not in the plan",
    });
    expect(setPhaseMarker(TASK_PLAN, "1", "IN PROGRESS")).toEqual({
      ok: false,
      reason: "Phase 1 is carried from an earlier plan version and is never edited",
    });
    expect(setPhaseMarker(TASK_PLAN, "3", "done]")).toMatchObject({ ok: false });
  });

  it("keeps CRLF line ends, the edited line's too", () => {
    const crlf = TASK_PLAN.replace(/\n/g, "\r\n");
    const result = setPhaseMarker(crlf, "3", "BLOCKED");
    if (!result.ok) throw new Error(result.reason);
    expect(result.text).toBe(crlf.replace("Parse  [NOT STARTED]\r\n", "Parse  [BLOCKED]\r\n"));
  });
});

describe("tickPhaseCheckboxes", () => {
  it("ticks open boxes of the phase body, nested too, but not fenced ones or other phases'", () => {
    const text = tickPhaseCheckboxes(TASK_PLAN, "3");
    expect(changedLines(TASK_PLAN, text)).toEqual([
      [14, "- [ ] top", "- [x] top"],
      [15, "  - [ ] nested", "  - [x] nested"],
    ]);
    const before = plan(TASK_PLAN).phases.map((p) => p.checkboxes);
    const after = plan(text).phases.map((p) => p.checkboxes);
    expect(before[2]).toEqual({ done: 1, total: 3 });
    expect(after[2]).toEqual({ done: 3, total: 3 });
    expect([...after.slice(0, 2), ...after.slice(3)]).toEqual([...before.slice(0, 2), ...before.slice(3)]);
  });

  it("returns the text unchanged for carried, unknown or already ticked phases", () => {
    expect(tickPhaseCheckboxes(TASK_PLAN, "1")).toBe(TASK_PLAN);
    expect(tickPhaseCheckboxes(TASK_PLAN, "8")).toBe(TASK_PLAN);
    const once = tickPhaseCheckboxes(TASK_PLAN, "4");
    expect(tickPhaseCheckboxes(once, "4")).toBe(once);
  });

  it("keeps CRLF line ends", () => {
    const crlf = TASK_PLAN.replace(/\n/g, "\r\n");
    expect(tickPhaseCheckboxes(crlf, "3")).toBe(
      crlf.replace("- [ ] top\r\n", "- [x] top\r\n").replace("  - [ ] nested\r\n", "  - [x] nested\r\n"),
    );
  });
});

describe("setPlanStatus", () => {
  it("replaces the whole bracket and drops free text after it", () => {
    const result = setPlanStatus(TASK_PLAN, "IMPLEMENTING");
    expect(result.found && result.changed).toBe(true);
    expect(changedLines(TASK_PLAN, result.text)).toEqual([
      [4, "- **Status**: [PARTIAL] - Resume at Phase 2", "- **Status**: [IMPLEMENTING]"],
    ]);
    expect(plan(result.text).status).toEqual({ marker: "IMPLEMENTING", status: "unknown", line: 4 });
  });

  it("handles the `**Status:**` form and CRLF", () => {
    const text =
      "# P\r\n\r\n## Metadata\r\n- **Status:** [NOT STARTED]\r\n\r\n### Phase 1: A [NOT STARTED]\r\n";
    expect(setPlanStatus(text, "IN PROGRESS")).toEqual({
      text: text.replace("[NOT STARTED]\r\n\r\n###", "[IN PROGRESS]\r\n\r\n###"),
      changed: true,
      found: true,
    });
  });

  it("says so when the plan has no Status line, and leaves the text alone", () => {
    const text = "# P\n\n### Phase 1: A [NOT STARTED]\n- **Status**: [x] inside a phase\n";
    expect(setPlanStatus(text, "COMPLETED")).toEqual({ text, changed: false, found: false });
  });

  it("throws on an invalid marker, a caller's bug", () => {
    expect(() => setPlanStatus(TASK_PLAN, "not a marker")).toThrow(TypeError);
  });
});
