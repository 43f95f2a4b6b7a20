import { describe, expect, it } from "vitest";
import { computeWaves, planWaves } from "./waves.js";

const phases = (deps: Record<string, string[]>) =>
  Object.entries(deps).map(([id, dependencies]) => ({ id, dependencies }));

describe("computeWaves", () => {
  it("layers a diamond", () => {
    expect(computeWaves(phases({ 1: [], 2: ["1"], 3: ["1"], 4: ["2", "3"] }))).toEqual({
      ok: true,
      waves: [["1"], ["2", "3"], ["4"]],
    });
  });

  it("keeps a chain sequential and file order within a wave", () => {
    const chain = [
      { id: "3", dependencies: ["0"] },
      { id: "0", dependencies: [] },
      { id: "2a", dependencies: ["3"] },
    ];
    expect(computeWaves(chain)).toEqual({ ok: true, waves: [["0"], ["3"], ["2a"]] });
  });

  it("puts independent phases in one wave, in file order", () => {
    expect(computeWaves(phases({ 5: [], 1: [], 3: [] }))).toEqual({ ok: true, waves: [["1", "3", "5"]] });
    const ordered = [
      { id: "5", dependencies: [] },
      { id: "1", dependencies: [] },
    ];
    expect(computeWaves(ordered)).toEqual({ ok: true, waves: [["5", "1"]] });
  });

  it("names the phases of a cycle", () => {
    expect(computeWaves(phases({ 1: [], 2: ["4"], 3: ["2"], 4: ["3"] }))).toEqual({
      ok: false,
      reason: "cycle",
      cycle: ["2", "4", "3"],
    });
    expect(computeWaves(phases({ 1: ["1"] }))).toEqual({ ok: false, reason: "cycle", cycle: ["1"] });
  });

  it("reports a dependency on a missing phase", () => {
    expect(computeWaves(phases({ 1: [], 2: ["9"] }))).toEqual({
      ok: false,
      reason: "missing",
      phase: "2",
      dependsOn: "9",
    });
  });
});

describe("planWaves", () => {
  const phase = (
    id: string,
    dependenciesLine: number | null,
    dependencies: string[] = [],
    carried = false,
  ) => ({
    id,
    dependencies,
    dependenciesLine,
    carried,
  });

  it("runs a plan that declares no dependencies in its order, one phase after the other", () => {
    const result = planWaves([phase("1", null), phase("2", null), phase("3", null), phase("4", null)]);
    expect(result).toEqual({ ok: true, waves: [["1"], ["2"], ["3"], ["4"]], reading: "in order" });
  });

  it("keeps a carried phase of an earlier version out of the order", () => {
    const result = planWaves([phase("1", null, [], true), phase("2", null), phase("3", null)]);
    expect(result).toMatchObject({ waves: [["1", "2"], ["3"]], reading: "in order" });
  });

  it("takes declared dependencies as written as soon as one phase declares any (None included)", () => {
    const result = planWaves([phase("1", 5), phase("2", null), phase("3", 9, ["1"])]);
    expect(result).toEqual({ ok: true, waves: [["1", "2"], ["3"]], reading: "declared" });
  });
});
