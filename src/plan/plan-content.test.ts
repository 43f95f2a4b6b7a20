import { describe, expect, it } from "vitest";
import { generatePlan, layeredPlanPhases } from "../testing/generate-plan.js";
import { setPhaseMarker, setPlanStatus, tickPhaseCheckboxes } from "./edit.js";
import { planContentHash } from "./plan-content.js";

describe.each(["task", "hard-barrier"] as const)("a %s plan's content", (style) => {
  const plan = generatePlan({ style, taskNumber: 1, title: "Parser", phases: layeredPlanPhases(2, 2) });

  it("is the same after every edit Baton makes while it runs the plan", () => {
    let ran = setPhaseMarker(plan, "1", style === "task" ? "COMPLETED" : "COMPLETE");
    if (!ran.ok) throw new Error(ran.reason);
    let text = tickPhaseCheckboxes(ran.text, "1");
    ran = setPhaseMarker(text, "2", "IN PROGRESS");
    if (!ran.ok) throw new Error(ran.reason);
    text = setPlanStatus(ran.text, "PARTIAL").text;
    expect(text).not.toBe(plan);
    expect(planContentHash(text)).toBe(planContentHash(plan));
  });

  it.each([
    ["a phase's words", (t: string) => t.replace("Step 1.1", "Step 1.1 and delete the tests")],
    ["a phase removed", (t: string) => t.slice(0, t.lastIndexOf("### Phase"))],
    [
      "a dependency",
      (t: string) =>
        t
          .replace("Dependencies:** Phase 1, Phase 2", "Dependencies:** Phase 1")
          .replace("dependencies: [1, 2]", "dependencies: [1]"),
    ],
    ["one character", (t: string) => `${t} `],
  ])("changes with %s", (_name, edit) => {
    expect(edit(plan)).not.toBe(plan);
    expect(planContentHash(edit(plan))).not.toBe(planContentHash(plan));
  });
});
