import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { nextArtifactPath } from "./artifacts.js";
import type { TaskEntry } from "./store-schema.js";

let root: string;
let specs: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "baton-artifacts-"));
  specs = join(root, "specs");
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const task = (extra: Partial<TaskEntry> = {}): TaskEntry => ({
  project_number: 81,
  project_name: "fp_witness",
  status: "researching",
  ...extra,
});

describe("artifact naming", () => {
  it("v1: numbers research reports and plans per kind, unpadded folder", () => {
    expect(nextArtifactPath(root, specs, task(), "research", { naming: "v1" }).recordedPath).toBe(
      "specs/81_fp_witness/reports/research-001.md",
    );
    mkdirSync(join(specs, "81_fp_witness", "reports"), { recursive: true });
    writeFileSync(join(specs, "81_fp_witness", "reports", "research-002.md"), "x");
    writeFileSync(join(specs, "81_fp_witness", "reports", "research-002-teammate-a-findings.md"), "x");
    expect(nextArtifactPath(root, specs, task(), "research", { naming: "v1" }).recordedPath).toBe(
      "specs/81_fp_witness/reports/research-003.md",
    );
    expect(nextArtifactPath(root, specs, task(), "plan", { naming: "v1" }).recordedPath).toBe(
      "specs/81_fp_witness/plans/implementation-001.md",
    );
    expect(
      nextArtifactPath(root, specs, task(), "summary", {
        naming: "v1",
        date: new Date("2026-02-19T10:00:00Z"),
      }).recordedPath,
    ).toBe("specs/81_fp_witness/summaries/implementation-summary-20260219.md");
  });

  it("v2: one padded sequence per task across kinds, padded folder", () => {
    const first = nextArtifactPath(root, specs, task(), "research", {
      naming: "v2",
      shortName: "Team Research",
    });
    expect(first).toMatchObject({
      recordedPath: "specs/081_fp_witness/reports/01_team-research.md",
      nextArtifactNumber: 2,
    });
    const plan = nextArtifactPath(root, specs, task({ next_artifact_number: 2 }), "plan", {
      naming: "v2",
      shortName: "plan",
    });
    expect(plan.recordedPath).toBe("specs/081_fp_witness/plans/02_plan.md");
  });

  it("v2: never reuses a number already on disk", () => {
    mkdirSync(join(specs, "081_fp_witness", "summaries"), { recursive: true });
    writeFileSync(join(specs, "081_fp_witness", "summaries", "04_completeness-summary.md"), "x");
    const next = nextArtifactPath(root, specs, task({ next_artifact_number: 2 }), "research", {
      naming: "v2",
    });
    expect(next.recordedPath).toBe("specs/081_fp_witness/reports/05_research.md");
  });

  it("keeps an existing v1 folder under the v2 convention", () => {
    mkdirSync(join(specs, "81_fp_witness"), { recursive: true });
    expect(nextArtifactPath(root, specs, task(), "plan", { naming: "v2" }).recordedPath).toBe(
      "specs/81_fp_witness/plans/01_plan.md",
    );
  });
});
