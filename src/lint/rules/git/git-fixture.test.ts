/**
 * The git rules over the original system (the proofchecker fixture, beside the repository in
 * ../shared/fixtures). The fixture is a plain folder, not a git work tree, so tracked files are checked by
 * giving the model the fixture's own control files as if they were tracked.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { buildModel } from "../../../../test/support/lint-model.js";
import { sharedFixture } from "../../../testing/requirements.js";
import type { LintModel } from "../../rule-types.js";
import { heredocNoExpand } from "./heredoc-no-expand.js";
import { trackedControlFiles } from "./tracked-control-files.js";

const FIXTURE = sharedFixture("proofchecker") ?? "";

describe.skipIf(FIXTURE === "")("git rules on the proofchecker fixture", () => {
  let model: LintModel;
  beforeAll(async () => {
    model = await buildModel(FIXTURE);
  });

  it("reports nothing tracked outside a git work tree", async () => {
    expect(model.tracked).toBeNull();
    expect(await trackedControlFiles.check(model)).toEqual([]);
  });

  it("reports the leftover .return-meta.json files once they are tracked", async () => {
    const leftovers = [
      "specs/953_refactor_proof_system_to_bilateral/.return-meta.json",
      "specs/981_remove_axiom_technical_debt_from_task_979/.return-meta.json",
      "specs/982_wire_dense_completeness_domain_connection/.return-meta.json",
    ];
    for (const path of leftovers) expect(existsSync(resolve(FIXTURE, path))).toBe(true);
    const tracked = { ...model, tracked: new Set(["specs/state.json", "specs/TODO.md", ...leftovers]) };
    expect((await trackedControlFiles.check(tracked)).map((f) => f.file)).toEqual(leftovers);
  });

  it("flags the marker template with $session_id in a quoted heredoc, not the {session_id} commit templates", async () => {
    const findings = await heredocNoExpand.check(model);
    expect(findings.map((f) => `${f.file}:${f.line}`)).toEqual([
      ".claude/context/core/patterns/postflight-control.md:76",
    ]);
    expect(findings[0]?.message).toContain("$session_id");
  });
});
