import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { checkClaimedPaths } from "../gate-out/check-changes.js";
import type { GateOutContext } from "../gate-out/gate-types.js";
import type { ReturnMetadata } from "../gate-out/return-metadata.js";
import { checkPhaseStatus, checkPhaseSummary, fileDigest, reportedRemaining } from "./phase-barrier.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function context(meta: Partial<ReturnMetadata>, summary?: { content?: string; before?: string | null }) {
  const root = mkdtempSync(join(tmpdir(), "baton-phase-gate-"));
  dirs.push(root);
  const summaryPath = join(root, "phase-1-summary.md");
  if (summary?.content !== undefined) writeFileSync(summaryPath, summary.content);
  const ctx: GateOutContext = {
    operation: "implement",
    sessionId: "sess_1",
    repoRoot: root,
    taskFolder: root,
    metadataPath: join(root, "meta.json"),
    agentOutput: "",
    storePrefix: "specs",
    expected: { minArtifactBytes: 100 },
    signals: [],
    metadata: {
      status: "implemented",
      summary: "done",
      artifacts: [],
      metadata: { session_id: "sess_1", agent_type: "a" },
      ...meta,
    } as ReturnMetadata,
    phase: { id: "1", summaryPath, summaryDigestBefore: summary?.before ?? null, minSummaryBytes: 100 },
  };
  return ctx;
}

describe("phase barrier gates", () => {
  it("accepts implemented and partial-with-remaining, refuses other statuses", () => {
    expect(checkPhaseStatus(context({}))).toEqual({ ok: true });
    expect(checkPhaseStatus(context({ status: "partial", work_remaining: ["lemma 3"] }))).toEqual({
      ok: true,
    });
    expect(checkPhaseStatus(context({ status: "researched" }))).toMatchObject({
      code: "META_STATUS_NOT_ALLOWED",
    });
    expect(checkPhaseStatus(context({ status: "partial" }))).toMatchObject({
      code: "WORK_REMAINING_MISSING",
    });
  });

  it("refuses files_changed outside the repository, or naming the repository itself", () => {
    expect(checkClaimedPaths(context({ files_changed: ["src/a.ts", "./b/c.ts", "src/"] }))).toEqual({
      ok: true,
    });
    for (const outside of ["../elsewhere.ts", "/etc/passwd", "src/../../up.ts"]) {
      expect(checkClaimedPaths(context({ files_changed: [outside] }))).toMatchObject({
        code: "FILE_OUTSIDE_REPO",
      });
    }
    const absolute = context({});
    absolute.metadata!.files_changed = [`${absolute.repoRoot}/`];
    expect(checkClaimedPaths(absolute)).toMatchObject({ code: "FILE_IS_REPO_ROOT" });
    for (const root of [".", "./", "", "src/.."]) {
      expect(checkClaimedPaths(context({ files_changed: [root] })), root).toMatchObject({
        code: "FILE_IS_REPO_ROOT",
      });
    }
  });

  it("reads what remains from work_remaining, else partial_progress.details", () => {
    expect(reportedRemaining({ work_remaining: ["a", "b"] } as ReturnMetadata)).toBe("a; b");
    expect(reportedRemaining({ partial_progress: { details: "c" } } as ReturnMetadata)).toBe("c");
    expect(reportedRemaining({ work_remaining: "  " } as ReturnMetadata)).toBeNull();
  });

  it("wants a summary that exists, is not a stub, and was written by this call", () => {
    const real = "A real account of the phase. ".repeat(5);
    expect(checkPhaseSummary(context({}))).toMatchObject({ code: "SUMMARY_MISSING" });
    expect(checkPhaseSummary(context({}, { content: "# done\n" }))).toMatchObject({
      code: "SUMMARY_TOO_SMALL",
    });
    expect(checkPhaseSummary(context({}, { content: real }))).toEqual({ ok: true });
    const stale = context({}, { content: real });
    stale.phase!.summaryDigestBefore = fileDigest(stale.phase!.summaryPath);
    expect(checkPhaseSummary(stale)).toMatchObject({ code: "SUMMARY_UNCHANGED" });
  });
});

describe("the phase barrier's gates", () => {
  it("are GATE OUT's, in its order, less the whole-operation ones, with the phase's own status and summary checks", async () => {
    const { PHASE_BARRIER } = await import("./phase-call.js");
    expect(PHASE_BARRIER.map((gate) => gate.name)).toEqual([
      "checkGitConfig",
      "checkBranch",
      "checkHistory",
      "checkHooks",
      "checkSettings",
      "checkAgentSignals",
      "readReturnMetadata",
      "checkSession",
      "refuseUnfinishedStatus",
      "checkPhaseStatus",
      "checkPhaseSummary",
      "checkSubmodules",
      "checkChanges",
      "refuseLinksOut",
      "checkProject",
      "checkTestCounts",
    ]);
  });
});
