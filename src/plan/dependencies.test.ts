import { describe, expect, it } from "vitest";
import { parseBulletDependencies, parseLineDependencies } from "./dependencies.js";

describe("dependency values seen in real plans", () => {
  it.each([
    ["None", []],
    ["None (builds on existing Phases 1-3 infrastructure)", []],
    ["Phase 1", ["1"]],
    ["Phase 1, Phase 3", ["1", "3"]],
    ["Phases 1-3 (completed)", ["1", "2", "3"]],
    ["Phases 4, 5", ["4", "5"]],
    ["Phase 2 or Phase 3", ["2", "3"]],
    ["Phase 6.5", ["6.5"]],
    ["Phase 2, Task 977 completion (for coordination)", ["2"]],
    ["Task 977 Phase 0 (DurationTransfer fix) [COMPLETED]", []],
    ["Task 956 (D Construction strategy)", []],
    ["soon", null],
  ])("bullet %j", (value, expected) => {
    expect(parseBulletDependencies(value)).toEqual(expected);
  });

  it.each([
    ["[]", []],
    ["[1, 2]", ["1", "2"]],
    ["[0]", ["0"]],
    ["1, 3a", ["1", "3a"]],
    ["[phase_1]", ["1"]],
    ["[x]", null],
  ])("line %j", (value, expected) => {
    expect(parseLineDependencies(value)).toEqual(expected);
  });
});
