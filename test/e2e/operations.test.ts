import { describe, expect, it } from "vitest";
import {
  expectSpecsUnchanged,
  GOOD_RESEARCH,
  git,
  ok,
  okJson,
  oneTaskRepo,
  read,
  readJson,
  runBaton,
  scriptFile,
  snapshotSpecs,
} from "./helpers.js";

const script = scriptFile;
const prepared = () => oneTaskRepo("Fix the parser");
const good = GOOD_RESEARCH;

describe("baton research (CLI)", () => {
  it("runs the checkpoints, prints progress on stderr and the result on stdout, and commits", () => {
    const dir = prepared();
    const result = runBaton(dir, ["research", "1", "the", "crash", "--script", script(dir, "good", good)]);
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^Task 1: research done → researched \(sess_\d{10}_[0-9a-f]{6}\)\n/);
    expect(result.stderr).toContain("GATE_OUT ✓");
    expect(git(dir, ["log", "-1", "--format=%s"])).toBe("task 1: complete research\n");
    expect(read(dir, "TODO.md")).toContain("- **Status**: [RESEARCHED]");
  });

  it("prints a JSON report and exits 1 when GATE OUT refuses, leaving the task retryable", () => {
    const dir = prepared();
    const stub = script(dir, "stub", [
      { write: "{task_folder}/reports/research-001.md", content: "# stub\n" },
      good[1],
    ]);
    const result = runBaton(dir, ["research", "1", "--script", stub, "--json"]);
    expect(result.status).toBe(1);
    const report = JSON.parse(result.stdout);
    expect(report).toMatchObject({
      status: "researching",
      result: { ok: false, checkpoint: "GATE_OUT", code: "ARTIFACT_TOO_SMALL" },
    });
    expect(readJson(dir, "errors.json").errors.at(-1)).toMatchObject({ type: "artifact_too_small" });
    expect(okJson(dir, ["research", "1", "--script", script(dir, "good", good)]).result).toMatchObject({
      ok: true,
    });
  });

  it("refuses at GATE IN with the lifecycle table's reason", () => {
    const dir = prepared();
    const result = runBaton(dir, ["implement", "1", "--script", script(dir, "good", good)]);
    expect(result.status).toBe(1);
    expect(result.stdout).toContain(
      "refused at GATE_IN [GATE_IN_REFUSED]: task 1: cannot implement: the task has no plan; run `baton plan` first",
    );
  });

  it("--dry-run shows the verdict, route, paths and prompt, and writes nothing", () => {
    const dir = prepared();
    const before = snapshotSpecs(dir);
    const plan = okJson(dir, ["research", "1", "the", "crash", "--dry-run"]);
    expect(plan).toMatchObject({
      gateIn: { ok: true, inProgress: "researching", done: "researched" },
      agent: "baton-researcher",
      agentSource: "Baton's default agents/baton-researcher.md",
      artifactPath: "specs/1_fix_the_parser/reports/research-001.md",
    });
    expect(plan.prompt).toContain("Focus: the crash");
    expect(plan.prompt).toContain("Write the report to: specs/1_fix_the_parser/reports/research-001.md");
    expectSpecsUnchanged(dir, before);
    const refused = runBaton(dir, ["implement", "1", "--dry-run"]);
    expect(refused.status).toBe(1);
    expect(refused.stdout).toContain("GATE IN:   refused: task 1: cannot implement");
  });

  it("honours --no-commit, and recover reports nothing to do", () => {
    const dir = prepared();
    ok(dir, ["research", "1", "--script", script(dir, "good", good), "--no-commit"]);
    expect(git(dir, ["log", "--format=%s"])).toBe("init\n");
    expect(ok(dir, ["recover"]).stdout).toBe("No open checkpoints: nothing to recover.\n");
  });
});
