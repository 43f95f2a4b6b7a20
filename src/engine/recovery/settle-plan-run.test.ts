import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { resolveConfig } from "../../config/index.js";
import type { TaskEntry } from "../../state/index.js";
import { generatePlan } from "../../testing/generate-plan.js";
import type { JournalRecord } from "../run/session-journal.js";
import { settlePlanRun } from "./settle-plan-run.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const at = "2026-11-22T00:00:00.000Z";
const begin = (phase: string, previousMarker = "NOT STARTED"): JournalRecord => ({
  at,
  step: "PHASE",
  phase: "begin",
  detail: { phase, previousMarker },
});
const end = (phase: string): JournalRecord => ({
  at,
  step: "PHASE",
  phase: "end",
  ok: true,
  detail: { phase },
});

function planned(markers: string[]) {
  const root = mkdtempSync(join(tmpdir(), "baton-recover-plan-"));
  dirs.push(root);
  const folder = join(root, "specs", "1_parser");
  mkdirSync(join(folder, "plans"), { recursive: true });
  const plan = join(folder, "plans", "implementation-001.md");
  writeFileSync(
    plan,
    generatePlan({
      style: "task",
      taskNumber: 1,
      title: "Parser",
      phases: markers.map((marker, k) => ({ id: String(k + 1), name: `Step ${k + 1}`, marker })),
    }),
  );
  const task = { project_number: 1, project_name: "parser", status: "implementing" } as TaskEntry;
  return { config: resolveConfig(root, null, {}), task, folder, plan };
}

describe("settlePlanRun (recovering a dead plan run)", () => {
  it("gives phases left [IN PROGRESS] their earlier marker and keeps completed ones", async () => {
    const t = planned(["COMPLETED", "IN PROGRESS", "NOT STARTED"]);
    const settled = await settlePlanRun(t.config, t.task, t.folder, "sess_1", [
      begin("1"),
      end("1"),
      begin("2", "PARTIAL"),
    ]);
    expect(settled).toMatchObject({ completed: ["1"], reopened: ["2"] });
    expect(settled?.planText).toContain("### Phase 2: Step 2 [PARTIAL]");
    expect(settled?.planText).toContain("### Phase 1: Step 1 [COMPLETED]");
  });

  it("trusts the plan over the journal: a phase recorded just before the kill stays complete", async () => {
    // The kill came after phase 1's marker and commit, before its journal end.
    const t = planned(["COMPLETED", "IN PROGRESS"]);
    const settled = await settlePlanRun(t.config, t.task, t.folder, "sess_1", [begin("1"), begin("2")]);
    expect(settled).toMatchObject({ completed: ["1"], reopened: ["2"] });
    expect(settled?.planText).toContain("### Phase 1: Step 1 [COMPLETED]");
    expect(settled?.planText).toContain("### Phase 2: Step 2 [NOT STARTED]");
    expect(readFileSync(t.plan, "utf8")).toContain("[IN PROGRESS]");
  });

  it("is null for a run that was not a plan run", async () => {
    const t = planned(["NOT STARTED"]);
    expect(await settlePlanRun(t.config, t.task, t.folder, "sess_1", [])).toBeNull();
  });
});
