import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  generatePlan,
  layeredPlanPhases,
  type PlanPhaseSpec,
  phaseScriptSteps,
} from "../../src/testing/generate-plan.js";
import { BATON_BIN } from "../support/cli.js";
import { git, ok, readJson, repo, runBaton } from "./helpers.js";

const FOLDER = "specs/1_build_the_parser";
const PLAN = `${FOLDER}/plans/implementation-001.md`;

function plannedTask(style: "task" | "hard-barrier", phases: PlanPhaseSpec[]): string {
  const dir = repo();
  ok(dir, ["task", "add", "Build the parser", "-l", "general"]);
  ok(dir, ["task", "status", "1", "planned", "--force"]);
  mkdirSync(join(dir, FOLDER, "plans"), { recursive: true });
  writeFileSync(join(dir, PLAN), generatePlan({ style, taskNumber: 1, title: "Build the parser", phases }));
  git(dir, ["add", "-A"]);
  git(dir, ["commit", "-qm", "planned"]);
  return dir;
}

/** Scripts live in .git/ so that `git status` shows only what the run itself left. */
function script(dir: string, phases: Record<string, unknown>, name = "agent"): string {
  const path = join(dir, ".git", `${name}.json`);
  writeFileSync(path, JSON.stringify({ phases: { "*": { steps: phaseScriptSteps() }, ...phases } }));
  return path;
}

const plan = (dir: string) => readFileSync(join(dir, PLAN), "utf8");
const subjects = (dir: string) => git(dir, ["log", "--format=%s"]).trim().split("\n");
const markers = (dir: string) =>
  [...plan(dir).matchAll(/^### Phase (\S+): .*\[([A-Z ]+)\]$/gm)].map((m) => `${m[1]}:${m[2]}`);

const failing = {
  steps: [{ output: "TASK_ERROR: build_error - the grammar does not compile" }, { exit: 1 }],
};

describe("baton implement N runs the plan phase by phase", () => {
  it("task style: waves, in-place markers and checkboxes, one commit per phase, the task completed", () => {
    const dir = plannedTask("task", layeredPlanPhases(2, 2));
    const before = plan(dir);
    const result = runBaton(dir, ["implement", "1", "--script", script(dir, {})]);
    expect(result.status).toBe(0);
    expect(result.stdout).toContain("Task 1: implement done → completed");
    expect(markers(dir)).toEqual(["1:COMPLETED", "2:COMPLETED", "3:COMPLETED", "4:COMPLETED"]);
    // Only markers, the phases' checkboxes and the Status line changed; every other line is as written.
    const a = before.split("\n");
    const b = plan(dir).split("\n");
    expect(b).toHaveLength(a.length);
    const changed = a.flatMap((line, i) => (line === b[i] ? [] : [`${line} => ${b[i]}`]));
    for (const change of changed) expect(change).toMatch(/^(### Phase|- \[ \]|- \*\*Status\*\*)/);
    expect(plan(dir)).toContain("- **Status**: [COMPLETED]");
    expect(plan(dir)).toContain("- [ ] The whole suite passes");
    const log = subjects(dir);
    expect(log[0]).toBe("task 1: complete implementation");
    expect(log.slice(1, 5).sort()).toEqual([
      "task 1 phase 1: Step 1.1",
      "task 1 phase 2: Step 1.2",
      "task 1 phase 3: Step 2.1",
      "task 1 phase 4: Step 2.2",
    ]);
    // Wave 2 starts only after wave 1 is recorded: its commits come after both of wave 1's.
    expect(log.indexOf("task 1 phase 3: Step 2.1")).toBeLessThan(log.indexOf("task 1 phase 2: Step 1.2"));
    expect(log.indexOf("task 1 phase 4: Step 2.2")).toBeLessThan(log.indexOf("task 1 phase 1: Step 1.1"));
    const body = git(dir, ["log", "-1", "--format=%B", "--grep", "phase 1:"]);
    expect(body).toMatch(/Session: sess_\d{10}_[0-9a-f]{6}/);
    // A phase commit holds the plan, that phase's summary and evidence, and the files it reported, nothing else
    // (the first commit with evidence in a repository also publishes the signing key, whichever phase it is).
    const phase1 = git(dir, ["log", "--format=%H", "--grep", "^task 1 phase 1:"]).trim();
    const session = /Session: (\S+)/.exec(body)![1]!;
    const listed = git(dir, ["show", "--name-only", "--format=", phase1]).trim().split("\n");
    expect(listed.filter((p) => !p.startsWith(".baton/keys/")).sort()).toEqual([
      `${FOLDER}/evidence/${session}-implement-phase-1.json`,
      PLAN,
      `${FOLDER}/summaries/phase-1-summary.md`,
      "src/phase-1.ts",
    ]);
    const evidence = JSON.parse(
      git(dir, ["show", `${phase1}:${FOLDER}/evidence/${session}-implement-phase-1.json`]),
    );
    expect(evidence).toMatchObject({ task: 1, phase: "1", status: { from: "NOT STARTED", to: "COMPLETED" } });
    // Phases of one wave share this tree: a neighbour's file may show in the diff, never as this phase's own.
    expect(evidence.changes.files).toContain("src/phase-1.ts");
    expect(evidence.changes.unlisted).not.toContain("src/phase-1.ts");
    expect(evidence.changes.unlisted.every((f: string) => /^src\/phase-[234]\.ts$/.test(f))).toBe(true);
    expect(evidence.artifacts[0].path).toBe(`${FOLDER}/summaries/phase-1-summary.md`);
    expect(readJson(dir, "state.json").active_projects[0].status).toBe("completed");
    expect(git(dir, ["status", "--porcelain"])).toBe("");
    // The phase evidence lists its work with the blobs the commit holds; verify holds each phase commit to it.
    expect(evidence.work).toEqual({
      "src/phase-1.ts": git(dir, ["rev-parse", `${phase1}:src/phase-1.ts`]).trim(),
    });
    const verified = runBaton(dir, ["verify", "--json"]);
    expect(verified.status, verified.stdout).toBe(0);
    expect(JSON.parse(verified.stdout).phaseCommits).toEqual({ checked: 4, problems: [] });
    // A phase commit that carries one more file than its evidence lists (history rewritten on a branch).
    git(dir, ["checkout", "-q", "-b", "rewritten", phase1]);
    writeFileSync(join(dir, "src", "extra.ts"), "export const extra = 1;\n");
    git(dir, ["add", "src/extra.ts"]);
    git(dir, ["commit", "-q", "--amend", "--no-edit"]);
    git(dir, ["cherry-pick", "--allow-empty", "--keep-redundant-commits", `${phase1}..main`]);
    const rewritten = runBaton(dir, ["verify"]);
    expect(rewritten.status).toBe(1);
    expect(rewritten.stdout).toMatch(
      /PHASE {3}[0-9a-f]{10} "task 1 phase 1: Step 1\.1"\n {4}- the commit changes src\/extra\.ts, which its phase evidence does not list/,
    );
  });

  it("hard-barrier style: [COMPLETE] markers, ticked boxes, Status [COMPLETE]", () => {
    const dir = plannedTask("hard-barrier", [
      { id: "0", name: "Standards", dependencies: [] },
      { id: "2", name: "Core", dependencies: ["0"] },
      { id: "5", name: "Docs", dependencies: ["0"] },
    ]);
    ok(dir, ["implement", "1", "--script", script(dir, {})]);
    expect(markers(dir)).toEqual(["0:COMPLETE", "2:COMPLETE", "5:COMPLETE"]);
    expect(plan(dir)).toContain("- **Status**: [COMPLETE]");
    expect(plan(dir)).not.toContain("- [ ] Write core");
  });

  it("blocks the dependents of a failed phase, lets independent phases finish, and resumes without redoing", () => {
    const dir = plannedTask("task", [
      { id: "1", name: "Lexer" },
      { id: "2", name: "Grammar" },
      { id: "3", name: "Parser", dependencies: ["2"] },
      { id: "4", name: "Printer", dependencies: ["1"] },
    ]);
    const first = runBaton(dir, ["implement", "1", "--script", script(dir, { "2": failing })]);
    expect(first.status).toBe(0);
    expect(first.stdout).toContain("partly done → partial");
    expect(first.stdout).toContain("the grammar does not compile");
    expect(markers(dir)).toEqual(["1:COMPLETED", "2:BLOCKED", "3:BLOCKED", "4:COMPLETED"]);
    expect(readJson(dir, "state.json").active_projects[0]).toMatchObject({
      status: "partial",
      resume_phase: 2,
    });
    expect(readJson(dir, "errors.json").errors.map((e: { message: string }) => e.message)).toEqual(
      expect.arrayContaining([expect.stringContaining("Phase 3 (Parser): Phase 2 did not complete")]),
    );
    // Completed phases would fail if called again: the resume must not call them.
    const resumed = runBaton(dir, [
      "implement",
      "1",
      "--script",
      script(dir, { "1": failing, "4": failing }, "resume"),
    ]);
    expect(resumed.status).toBe(0);
    expect(resumed.stdout).toContain("done → completed");
    expect(markers(dir)).toEqual(["1:COMPLETED", "2:COMPLETED", "3:COMPLETED", "4:COMPLETED"]);
    expect(subjects(dir).filter((s) => s === "task 1 phase 1: Lexer")).toHaveLength(1);
  });

  it("calls a phase again with what remains, until it completes", () => {
    const dir = plannedTask("task", [{ id: "1", name: "Parser" }]);
    const partial = {
      writeMetadata: {
        status: "partial",
        summary: "half",
        artifacts: [],
        work_remaining: "error recovery at iteration {iteration}",
        metadata: { session_id: "{session_id}", agent_type: "scripted" },
      },
    };
    const summary = {
      write: "{summary_file}",
      content: `${"Progress on the parser. ".repeat(6)} ({iteration})\n`,
    };
    const agent = script(dir, {
      "1": { iterations: [[summary, partial], [summary, partial], phaseScriptSteps()] },
    });
    const report = JSON.parse(runBaton(dir, ["implement", "1", "--script", agent, "--json"]).stdout);
    expect(report.plan.phases[0].record.verdict).toEqual({ kind: "complete", iterations: 3 });
    expect(markers(dir)).toEqual(["1:COMPLETED"]);
  });

  it("stops a stuck phase as [PARTIAL] when its remaining work is unchanged twice", () => {
    const dir = plannedTask("task", [
      { id: "1", name: "Parser" },
      { id: "2", name: "Docs", dependencies: ["1"] },
    ]);
    const stuck = [
      { write: "{summary_file}", content: `${"Tried the same approach again. ".repeat(5)} ({iteration})\n` },
      {
        writeMetadata: {
          status: "partial",
          summary: "still stuck",
          artifacts: [],
          work_remaining: "prove lemma 3",
          metadata: { session_id: "{session_id}", agent_type: "scripted" },
        },
      },
    ];
    const result = runBaton(dir, [
      "implement",
      "1",
      "--script",
      script(dir, { "1": { steps: stuck } }),
      "--json",
    ]);
    const report = JSON.parse(result.stdout);
    expect(report.plan.phases[0].record.verdict).toMatchObject({
      kind: "partial",
      reason: "stuck",
      iterations: 3,
    });
    expect(report.plan.phases[0].record.verdict.message).toContain("prove lemma 3");
    expect(markers(dir)).toEqual(["1:PARTIAL", "2:BLOCKED"]);
    // Nothing completed, but the phase made verified progress: the task is partial and resumable.
    expect(report.status).toBe("partial");
  });

  it("refuses a stub or stale summary at the phase's hard barrier", () => {
    const dir = plannedTask("task", [{ id: "1", name: "Parser" }]);
    const stub = [
      { write: "{summary_file}", content: "# done\n" },
      ...phaseScriptSteps().filter((s) => "writeMetadata" in (s as object)),
    ];
    const result = runBaton(dir, [
      "implement",
      "1",
      "--script",
      script(dir, { "1": { steps: stub } }),
      "--json",
    ]);
    expect(result.status).toBe(1);
    const report = JSON.parse(result.stdout);
    expect(report.result).toMatchObject({ ok: false, code: "PHASES_FAILED" });
    expect(report.plan.phases[0].record.verdict).toMatchObject({ kind: "failed", code: "SUMMARY_TOO_SMALL" });
    expect(markers(dir)).toEqual(["1:BLOCKED"]);
  });

  it("reports a malformed plan with line numbers before anything runs", () => {
    const dir = plannedTask("task", [
      { id: "1", name: "A", dependencies: ["2"] },
      { id: "2", name: "B", dependencies: ["1"] },
    ]);
    const before = git(dir, ["status", "--porcelain"]);
    const result = runBaton(dir, ["implement", "1", "--script", script(dir, {})]);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toMatch(
      /implementation-001\.md:\d+: dependency cycle: Phase 1 → Phase 2 → Phase 1/,
    );
    expect(readJson(dir, "state.json").active_projects[0].status).toBe("planned");
    expect(git(dir, ["status", "--porcelain"])).toBe(before);
  });

  it("never runs more agents at once than --concurrency", () => {
    const dir = plannedTask("task", layeredPlanPhases(1, 4));
    const agent = script(dir, { "*": { steps: phaseScriptSteps({ sleepMs: 600 }) } });
    const report = JSON.parse(
      runBaton(dir, ["implement", "1", "--script", agent, "--concurrency", "2", "--json"]).stdout,
    );
    const journal = readFileSync(join(dir, report.journal), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { step: string; phase: string; detail?: { phase?: string } });
    let running = 0;
    let peak = 0;
    for (const record of journal) {
      if (record.step === "AGENT") running += record.phase === "begin" ? 1 : -1;
      peak = Math.max(peak, running);
    }
    expect(peak).toBe(2);
    expect(markers(dir)).toEqual(["1:COMPLETED", "2:COMPLETED", "3:COMPLETED", "4:COMPLETED"]);
  });

  it("resumes after kill -9 in the middle of a wave: finished phases stay, open ones run again", async () => {
    const dir = plannedTask("task", layeredPlanPhases(2, 2));
    const slow = script(dir, {
      "1": { steps: phaseScriptSteps() },
      "2": { steps: phaseScriptSteps({ sleepMs: 60_000 }) },
    });
    const child = spawn(process.execPath, [BATON_BIN, "implement", "1", "--script", slow], {
      cwd: dir,
      stdio: "ignore",
    });
    const deadline = Date.now() + 20_000;
    while (!subjects(dir).includes("task 1 phase 1: Step 1.1") && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
    }
    child.kill("SIGKILL");
    await new Promise((r) => child.once("exit", r));
    expect(markers(dir)).toEqual(["1:COMPLETED", "2:IN PROGRESS", "3:NOT STARTED", "4:NOT STARTED"]);
    const resumed = runBaton(dir, ["implement", "1", "--script", script(dir, { "1": failing }, "after")]);
    const shown = `${resumed.stdout}\n${resumed.stderr}`;
    expect(resumed.status, shown).toBe(0);
    expect(resumed.stdout, shown).toContain("First: Task 1 (implement");
    expect(resumed.stdout, shown).toContain("done → completed");
    expect(markers(dir)).toEqual(["1:COMPLETED", "2:COMPLETED", "3:COMPLETED", "4:COMPLETED"]);
    expect(subjects(dir).filter((s) => s.startsWith("task 1 phase 1:"))).toHaveLength(1);
    expect(existsSync(join(dir, FOLDER, ".return-meta.phase-2.json"))).toBe(false);
  });

  it("puts a killed shared-tree phase's unrecorded work aside, so a re-run in worktrees brings its own back", async () => {
    const dir = plannedTask("task", layeredPlanPhases(2, 2));
    const half = { write: "src/phase-2.ts", content: "export const phase = 'half';\n" };
    const slow = script(dir, { "2": { steps: [half, { sleepMs: 60_000 }] } });
    const child = spawn(process.execPath, [BATON_BIN, "implement", "1", "--script", slow], {
      cwd: dir,
      stdio: "ignore",
    });
    const started = () =>
      subjects(dir).includes("task 1 phase 1: Step 1.1") && existsSync(join(dir, "src/phase-2.ts"));
    const deadline = Date.now() + 20_000;
    while (!started() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    child.kill("SIGKILL");
    await new Promise((r) => child.once("exit", r));
    const resumed = runBaton(dir, [
      "implement",
      "1",
      "--isolate",
      "worktree",
      "--script",
      script(dir, {}, "after"),
    ]);
    const shown = `${resumed.stdout}\n${resumed.stderr}\n${git(dir, ["status", "--porcelain"])}`;
    expect(resumed.status, shown).toBe(0);
    expect(markers(dir)).toEqual(["1:COMPLETED", "2:COMPLETED", "3:COMPLETED", "4:COMPLETED"]);
    expect(git(dir, ["status", "--porcelain"])).toBe("");
    expect(readFileSync(join(dir, "src/phase-2.ts"), "utf8")).toBe("export const phase = '2';\n");
    // The dead run's half-done file is not lost: it waits on a branch of its own.
    const [branch] = git(dir, ["branch", "--list", "--format=%(refname:short)", "baton/leftovers/*"]).split(
      "\n",
    );
    expect(git(dir, ["show", `${branch}:src/phase-2.ts`])).toBe("export const phase = 'half';\n");
  });
});

describe("baton implement N --isolate worktree", () => {
  it("runs each phase in its own worktree and brings the work back in phase order", () => {
    const dir = plannedTask("task", layeredPlanPhases(1, 3));
    const agent = script(dir, { "*": { steps: phaseScriptSteps({ sleepMs: 100 }) } });
    const result = runBaton(dir, ["implement", "1", "--script", agent, "--isolate", "worktree", "--json"]);
    // A rare miss under a loaded suite: its history, its report and errors.json say which phase failed how.
    const errors = join(dir, "specs", "errors.json");
    const shown = `${git(dir, ["log", "--stat", "-6"])}\n${result.stdout}\n${result.stderr}\n${existsSync(errors) ? readFileSync(errors, "utf8") : ""}`;
    expect(result.status, shown).toBe(0);
    expect(subjects(dir).slice(1, 4), shown).toEqual([
      "task 1 phase 3: Step 1.3",
      "task 1 phase 2: Step 1.2",
      "task 1 phase 1: Step 1.1",
    ]);
    for (const id of ["1", "2", "3"]) expect(existsSync(join(dir, `src/phase-${id}.ts`))).toBe(true);
    expect(git(dir, ["worktree", "list"]).trim().split("\n")).toHaveLength(1);
    expect(git(dir, ["branch", "--list", "baton/*"])).toBe("");
  });

  it("reports a conflict with the phase and files, and keeps the phase's work on its branch", () => {
    const dir = plannedTask("task", layeredPlanPhases(1, 2));
    writeFileSync(join(dir, "shared.ts"), "export const value = 0;\n");
    git(dir, ["add", "-A"]);
    git(dir, ["commit", "-qm", "shared"]);
    const edit = (value: string) => ({
      steps: [{ write: "shared.ts", content: `export const value = ${value};\n` }, ...phaseScriptSteps()],
    });
    const result = runBaton(dir, [
      "implement",
      "1",
      "--script",
      script(dir, { "1": edit("1"), "2": edit("2") }),
      "--isolate",
      "worktree",
      "--json",
    ]);
    const report = JSON.parse(result.stdout);
    const second = report.plan.phases[1].record;
    expect(second.verdict).toMatchObject({ kind: "failed", code: "MERGE_CONFLICT" });
    expect(second.verdict.message).toContain("shared.ts");
    expect(second.keptBranch).toMatch(/^baton\/sess_.*\/phase-2$/);
    expect(readFileSync(join(dir, "shared.ts"), "utf8")).toBe("export const value = 1;\n");
    expect(git(dir, ["show", `${second.keptBranch}:shared.ts`])).toBe("export const value = 2;\n");
    expect(markers(dir)).toEqual(["1:COMPLETED", "2:BLOCKED"]);
  });
});
