import { describe, expect, it } from "vitest";
import { parseStepMarker } from "./step-marker.js";

describe("step marker lines", () => {
  it("reads a JSON payload or plain text, and ignores other lines", () => {
    expect(parseStepMarker('BATON_STEP: {"label":"npm test","tool":"Bash","agent":"tester"}')).toEqual({
      label: "npm test",
      tool: "Bash",
      agent: "tester",
    });
    expect(parseStepMarker("BATON_STEP: Writing the plan")).toEqual({ label: "Writing the plan" });
    expect(parseStepMarker("BATON_STEP: {broken json")).toEqual({ label: "{broken json" });
    expect(parseStepMarker('BATON_STEP: {"tool":"Bash"}')).toEqual({ label: '{"tool":"Bash"}' });
    expect(parseStepMarker("BATON_STEP:   ")).toBeNull();
    expect(parseStepMarker("  BATON_STEP: indented is output")).toBeNull();
    expect(parseStepMarker("hello")).toBeNull();
  });
});
