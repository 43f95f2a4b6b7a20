import { describe, expect, it } from "vitest";
import { modelFromTexts } from "../../../../test/support/lint-model.js";
import { trackedControlFiles } from "./tracked-control-files.js";

const FILES = { ".claude/settings.json": "{}" };

describe("git/tracked-control-files", () => {
  it("reports tracked markers, loop guards and return metadata, legacy locations included", async () => {
    const model = modelFromTexts(FILES, {
      tracked: [
        ".claude/settings.json",
        "specs/state.json",
        "specs/982_wire_dense_completeness/.return-meta.json",
        "specs/982_wire_dense_completeness/.postflight-pending",
        "specs/982_wire_dense_completeness/.postflight-loop-guard",
        "specs/982_wire_dense_completeness/reports/research-001.md",
        "specs/.meta-return/return-meta.json",
        "specs/412_x/.meta/research-return-meta.json",
      ],
    });
    const findings = await trackedControlFiles.check(model);
    expect(findings.map((f) => f.file)).toEqual([
      "specs/.meta-return/return-meta.json",
      "specs/412_x/.meta/research-return-meta.json",
      "specs/982_wire_dense_completeness/.postflight-loop-guard",
      "specs/982_wire_dense_completeness/.postflight-pending",
      "specs/982_wire_dense_completeness/.return-meta.json",
    ]);
    expect(findings[0]).toMatchObject({ severity: "error", line: 1, column: 1 });
  });

  it("accepts untracked control files, look-alike names and a root outside git", async () => {
    const tracked = modelFromTexts(FILES, {
      tracked: ["specs/state.json", "docs/return-meta.json.md", "specs/1_x/postflight-pending-notes.md"],
    });
    expect(await trackedControlFiles.check(tracked)).toEqual([]);
    expect(await trackedControlFiles.check(modelFromTexts(FILES, { tracked: null }))).toEqual([]);
  });
});
