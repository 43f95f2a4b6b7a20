import { describe, expect, it } from "vitest";
import { goJsonCounts, jestJsonCounts, tapCounts } from "./report-formats.js";

describe("report formats", () => {
  it("counts TAP's top-level results with their SKIP and TODO directives", () => {
    const tap = `TAP version 13
# Subtest: a
ok 1 - a
not ok 2 - b
ok 3 - c # SKIP not now
ok 4 - d # TODO later
    ok 1 - a subtest, summarised by its parent
1..4
`;
    expect(tapCounts(tap)).toEqual({ tests: 4, passed: 1, failed: 1, skipped: 1, todo: 1 });
    expect(tapCounts("ok 1 - no plan, so not a complete report\n")).toBeNull();
  });

  it("reads jest's and vitest's JSON totals", () => {
    const json = JSON.stringify({
      numTotalTests: 5,
      numPassedTests: 3,
      numFailedTests: 1,
      numPendingTests: 1,
      numTodoTests: 0,
    });
    expect(jestJsonCounts(`some noise\n${json}`)).toEqual({
      tests: 5,
      passed: 3,
      failed: 1,
      skipped: 1,
      todo: 0,
    });
    expect(jestJsonCounts("{}")).toBeNull();
  });

  it("reads go test -json: each test's last result, complete once a package ended", () => {
    const lines = [
      { Action: "run", Package: "p", Test: "TestA" },
      { Action: "pass", Package: "p", Test: "TestA" },
      { Action: "skip", Package: "p", Test: "TestB" },
      { Action: "fail", Package: "p", Test: "TestC" },
      { Action: "fail", Package: "p" },
    ].map((e) => JSON.stringify(e));
    expect(goJsonCounts(lines.join("\n"))).toEqual({ tests: 3, passed: 1, failed: 1, skipped: 1, todo: 0 });
    expect(goJsonCounts(lines.slice(0, 2).join("\n"))).toBeNull();
  });
});
