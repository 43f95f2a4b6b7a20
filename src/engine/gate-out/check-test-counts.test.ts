import { describe, expect, it } from "vitest";
import { checkTestCounts } from "./check-test-counts.js";
import type { GateOutContext } from "./gate-types.js";

const check = (format: "junit" | "tap", report: string | null = null) => ({
  name: "tests",
  run: "make test",
  timeoutMs: 1000,
  languages: null,
  when: "both" as const,
  report,
  format,
  holdout: null,
});

function ctx(configured: ReturnType<typeof check>, counts?: { tests: number }): GateOutContext {
  return {
    operation: "implement",
    sessionId: "s",
    repoRoot: "/nonexistent",
    taskFolder: "/nonexistent/t",
    metadataPath: "/nonexistent/t/m",
    agentOutput: "",
    storePrefix: "specs",
    baseline: null,
    expected: { minArtifactBytes: 0, checks: [configured] },
    checkRuns: [
      {
        name: "tests",
        command: "make test",
        ok: true,
        exitCode: 0,
        durationMs: 1,
        tail: [],
        ...(counts ? { counts: { passed: counts.tests, failed: 0, skipped: 0, todo: 0, ...counts } } : {}),
      },
    ],
    signals: [],
  };
}

describe("test counts", () => {
  it("refuses a check that says it reports but left no complete report", async () => {
    const verdict = await checkTestCounts(ctx(check("tap")));
    expect(verdict).toMatchObject({ ok: false, code: "NO_TESTS_RAN" });
  });

  it("refuses a report of no tests at all, and lets a check that never reports be judged by its exit code", async () => {
    expect(await checkTestCounts(ctx(check("junit", "junit.xml"), { tests: 0 }))).toMatchObject({
      ok: false,
      code: "NO_TESTS_RAN",
    });
    expect(await checkTestCounts(ctx(check("junit")))).toEqual({ ok: true });
  });
});
