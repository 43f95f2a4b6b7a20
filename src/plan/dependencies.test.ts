import { describe, expect, it } from "vitest";
import {
  parseBulletDependencies,
  parseBulletDependencyGroups,
  parseLineDependencies,
} from "./dependencies.js";

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

describe("dependency groups and the completed qualifier", () => {
  const groups = (value: string) =>
    parseBulletDependencyGroups(value)?.map((g) => [g.text, g.ids, g.completed]) ?? null;

  it.each([
    ["Phases 1-5 completed", [["Phases 1-5 completed", ["1", "2", "3", "4", "5"], true]]],
    ["Phases 1-3 (completed)", [["Phases 1-3 (completed)", ["1", "2", "3"], true]]],
    ["Phase 2 (done)", [["Phase 2 (done)", ["2"], true]]],
    ["Phase 6 [COMPLETED]", [["Phase 6 [COMPLETED]", ["6"], true]]],
    ["Phases 4, 5 complete", [["Phases 4, 5 complete", ["4", "5"], true]]],
    [
      "Phase 1, Phase 9 (done)",
      [
        ["Phase 1", ["1"], false],
        ["Phase 9 (done)", ["9"], true],
      ],
    ],
    [
      "Phase 2 (for coordination), Phase 3",
      [
        ["Phase 2", ["2"], false],
        ["Phase 3", ["3"], false],
      ],
    ],
    ["Phase 4 completion report", [["Phase 4", ["4"], false]]],
    ["Task 977 Phase 0 (DurationTransfer fix) [COMPLETED]", []],
    ["soon", null],
  ])("%j", (value, expected) => {
    expect(groups(value)).toEqual(expected);
  });
});
