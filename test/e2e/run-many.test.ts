import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { wholeWayScript } from "../../src/testing/generate-plan.js";
import { BATON_BIN } from "../support/cli.js";
import { activeTasks, commitAll, fails, git, ok, okJson, runBatonAsync, tasksWithScript } from "./helpers.js";

const tasksRepo = (n: number, script: unknown = wholeWayScript()) => tasksWithScript(n, script);

const statusOf = (dir: string) =>
  Object.fromEntries(activeTasks(dir).map((t) => [t.project_number, t.status]));
const subjects = (dir: string) => git(dir, ["log", "--format=%s"]).trim().split("\n");

describe("baton run on one machine", () => {
  it("runs every selected task's next operations to the target, several at once, each committed", async () => {
    const { dir, script } = tasksRepo(4);
    const result = await runBatonAsync(dir, [
      "run",
      "--all-ready",
      "--until",
      "planned",
      "--concurrency",
      "3",
      "--script",
      script,
    ]);
    expect(result.status, result.stdout + result.stderr).toBe(0);
    expect(statusOf(dir)).toEqual({ 1: "planned", 2: "planned", 3: "planned", 4: "planned" });
    for (let n = 1; n <= 4; n++) {
      expect(subjects(dir).filter((s) => s === `task ${n}: complete research`)).toHaveLength(1);
      expect(subjects(dir).filter((s) => s === `task ${n}: create implementation plan`)).toHaveLength(1);
    }
    expect(result.stdout).toContain("Ran 8 operations on 4 selected tasks: 8 done, 0 failed");
    expect(result.stderr).toMatch(/task \d research started \(pid \d+\)/);
    expect(git(dir, ["status", "--porcelain"])).toBe("");
    // Nothing is left to do up to `planned`: a second run starts nothing.
    const again = okJson(dir, ["run", "--all-ready", "--until", "planned", "--script", script, "--json"]);
    expect(again.runs).toEqual([]);
    expect(again.finished).toEqual([1, 2, 3, 4]);
  }, 120_000);

  it("implements a task only after the tasks it depends on are completed; phases run in worktrees", async () => {
    const { dir, script } = tasksRepo(2);
    ok(dir, ["task", "edit", "2", "--depends", "1"]);
    commitAll(dir, "2 depends on 1");
    const result = await runBatonAsync(dir, [
      "run",
      "--tasks",
      "1-2",
      "--concurrency",
      "2",
      "--script",
      script,
    ]);
    expect(result.status, result.stdout + result.stderr).toBe(0);
    expect(statusOf(dir)).toEqual({ 1: "completed", 2: "completed" });
    const log = subjects(dir);
    // Newest first: task 2's implementation comes after task 1's completed.
    expect(log.indexOf("task 2 phase 1: Step 1.1")).toBeLessThan(
      log.indexOf("task 1: complete implementation"),
    );
    expect(git(dir, ["worktree", "list"]).trim().split("\n")).toHaveLength(1);
    expect(result.stderr).toMatch(/task 1 phase 1 started/);
  }, 180_000);

  it("stops every run cleanly on Ctrl-C, and the next baton run goes on without doing anything twice", async () => {
    const { dir, script } = tasksRepo(3, wholeWayScript({ sleepMs: 4000 }));
    const child = spawn(
      process.execPath,
      [BATON_BIN, "run", "--all-ready", "--until", "researched", "--concurrency", "2", "--script", script],
      {
        cwd: dir,
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let err = "";
    child.stderr.on("data", (c: Buffer) => {
      err += c.toString();
    });
    const deadline = Date.now() + 20_000;
    while ((err.match(/research started/g) ?? []).length < 2 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    child.kill("SIGINT");
    const code = await new Promise((r) => child.once("exit", r));
    expect(code).toBe(130);
    // No run is left holding a task, and nothing was recorded as researched by a stopped run.
    expect(okJson(dir, ["status", "--json"]).running).toEqual([]);
    expect(Object.values(statusOf(dir)).filter((s) => s === "researched")).toEqual([]);
    const resumed = await runBatonAsync(dir, [
      "run",
      "--all-ready",
      "--until",
      "researched",
      "--concurrency",
      "3",
      "--script",
      script,
    ]);
    expect(resumed.status, resumed.stdout + resumed.stderr).toBe(0);
    expect(statusOf(dir)).toEqual({ 1: "researched", 2: "researched", 3: "researched" });
    for (let n = 1; n <= 3; n++)
      expect(subjects(dir).filter((s) => s === `task ${n}: complete research`)).toHaveLength(1);
  }, 120_000);

  it("refuses a run that names no tasks, and a bad range, before anything starts", () => {
    const { dir } = tasksRepo(1);
    expect(fails(dir, ["run"], 2).stderr).toContain("name the tasks to run");
    expect(fails(dir, ["run", "--tasks", "3-1"], 2).stderr).toContain(
      '--tasks: "3-1" is not a range from low to high',
    );
    expect(fails(dir, ["run", "--all-ready", "--until", "merged"], 2).stderr).toContain("--until must be");
  });
});

describe("two baton run at once on one repository", () => {
  it("never run one task twice: each task researched once, the other run leaves a claimed task alone", async () => {
    const { dir, script } = tasksRepo(3, wholeWayScript({ sleepMs: 1500 }));
    const args = [
      "run",
      "--all-ready",
      "--until",
      "researched",
      "--concurrency",
      "3",
      "--script",
      script,
      "--json",
    ];
    const [a, b] = await Promise.all([runBatonAsync(dir, args), runBatonAsync(dir, args)]);
    for (const result of [a, b]) expect(result.status, result.stdout + result.stderr).toBe(0);
    expect(statusOf(dir)).toEqual({ 1: "researched", 2: "researched", 3: "researched" });
    for (let n = 1; n <= 3; n++)
      expect(subjects(dir).filter((s) => s === `task ${n}: complete research`)).toHaveLength(1);
    const reports = [JSON.parse(a.stdout), JSON.parse(b.stdout)];
    const ran = reports.flatMap((r) => r.runs.map((run: { task: number }) => run.task)).sort();
    expect(ran).toEqual([1, 2, 3]);
    expect(reports.flatMap((r) => r.runs.filter((run: { ok: boolean }) => !run.ok))).toEqual([]);
  }, 120_000);
});
