import { describe, expect, it } from "vitest";
import {
  cloneRepo,
  diffLines,
  expectSpecsUnchanged,
  fails,
  generatedRepo,
  ISO_SECONDS,
  ok,
  okJson,
  repo,
  runAll,
  runBatonAsync,
  snapshotSpecs,
  task,
  todoEntry,
  todoStatusOf,
} from "./helpers.js";

const marker = (status: string) => `[${status.toUpperCase().replace(/_/g, " ")}]`;

/** The manual-move table as documented in docs/lifecycle.md: target → statuses it may be set from. */
const ALLOWED_FROM: Record<string, string[]> = {
  not_started: ["researching", "blocked"],
  researched: ["researching", "planning", "blocked"],
  planned: ["planning", "implementing", "partial", "blocked"],
  partial: ["implementing", "blocked"],
  blocked: ["not_started", "researching", "researched", "planning", "planned", "implementing", "partial"],
  completed: ["planned", "implementing", "partial"],
};

/** generateRepo with 9 active tasks gives one task per status: 9 not_started, 8 researching, … 1 completed. */
const BY_STATUS: Record<string, number> = {
  not_started: 9,
  researching: 8,
  researched: 7,
  planning: 6,
  planned: 5,
  implementing: 4,
  partial: 3,
  blocked: 2,
  completed: 1,
};

describe("manual status moves follow the lifecycle table", () => {
  it("every (from, to) pair: allowed moves change exactly the task's lines, refused ones change no byte", async () => {
    const { dir } = generatedRepo({ active: 9, archived: 0 });
    const argsFor = (n: number, to: string) => [
      "task",
      "status",
      String(n),
      to,
      ...(to === "blocked" ? ["--reason", "waiting"] : []),
    ];
    for (const [from, n] of Object.entries(BY_STATUS)) {
      expect(task(dir, n).status).toBe(from);
      const targets = Object.keys(ALLOWED_FROM).filter((to) => to !== from);
      // Refused moves: run together (none may write), then compare every byte.
      const refused = targets.filter((to) => !ALLOWED_FROM[to]!.includes(from));
      const before = snapshotSpecs(dir);
      const results = await runAll(
        dir,
        refused.map((to) => argsFor(n, to)),
      );
      for (const [i, to] of refused.entries()) {
        const result = results[i]!;
        expect(result.status, `${from} -> ${to}: ${result.stdout}`).toBe(1);
        expect(result.stderr).toContain(`task ${n}: cannot move from ${from} to ${to}`);
        expect(result.stderr).toContain(`${to} may be set only from ${ALLOWED_FROM[to]!.join(", ")}`);
        expect(result.stderr).toContain("--force");
      }
      expectSpecsUnchanged(dir, before);
      // Allowed moves: each in its own copy of the committed repository, all at once.
      const allowed = targets.filter((t) => ALLOWED_FROM[t]!.includes(from));
      const copies = allowed.map(() => cloneRepo(dir));
      const moved = await Promise.all(allowed.map((to, i) => runBatonAsync(copies[i]!, argsFor(n, to))));
      for (const [i, to] of allowed.entries()) {
        const copy = copies[i]!;
        expect(moved[i]!.status, `${from} -> ${to}: ${moved[i]!.stderr}`).toBe(0);
        const t = task(copy, n);
        expect(t.status, `${from} -> ${to}`).toBe(to);
        expect(t.last_updated).toMatch(ISO_SECONDS);
        expect(todoStatusOf(copy, n), `${from} -> ${to}`).toBe(marker(to));
        // TODO.md: the status line changes (and a Blocked on line when blocking), nothing else.
        const todoDiff = diffLines(copy, "specs/TODO.md");
        expect(todoDiff).toContain(`-- **Status**: ${marker(from)}`);
        expect(todoDiff).toContain(`+- **Status**: ${marker(to)}`);
        for (const line of todoDiff) expect(line).toMatch(/^[-+]- \*\*(Status|Blocked on)\*\*: /);
      }
    }
  });

  it("in-progress, abandoned, expanded and unknown targets are refused, even with --force", async () => {
    const { dir } = generatedRepo({ active: 9, archived: 0 });
    const before = snapshotSpecs(dir);
    const cases: Array<[string, string]> = [
      ["researching", "written only by a running operation"],
      ["planning", "written only by a running operation"],
      ["implementing", "written only by a running operation"],
      ["abandoned", "use `baton task abandon N`"],
      ["expanded", "use `baton task expand N`"],
      ["finished", '"finished" is not a task status'],
    ];
    // Half from a not_started task, half from a planned one with --force; --force never helps here.
    const runs = cases.map(([to, why], i) => {
      const [n, force] = i % 2 === 0 ? [BY_STATUS.not_started!, []] : [BY_STATUS.planned!, ["--force"]];
      return { n, why, args: ["task", "status", String(n), to, ...force] };
    });
    runs.push({ n: 9, why: "the task is already not_started", args: ["task", "status", "9", "not_started"] });
    const results = await runAll(
      dir,
      runs.map((r) => r.args),
    );
    for (const [i, run] of runs.entries()) {
      expect(results[i]!.status, run.args.join(" ")).toBe(1);
      expect(results[i]!.stderr).toContain(`task ${run.n}: `);
      expect(results[i]!.stderr).toContain(run.why);
    }
    expect(fails(dir, ["task", "status", "77", "blocked", "-r", "x"], 3).stderr).toContain(
      "task 77 not found",
    );
    expectSpecsUnchanged(dir, before);
  });

  it("walks a task along the canonical path, writing stamps and both files each time", () => {
    const dir = repo();
    ok(dir, ["task", "add", "Walk the lifecycle", "-l", "general"]);
    ok(dir, ["task", "status", "1", "blocked", "--reason", "needs design review"]);
    expect(task(dir, 1).blocked_reason).toBe("needs design review");
    expect(todoEntry(dir, 1)).toContain("- **Blocked on**: needs design review");

    const r = okJson(dir, ["task", "status", "1", "researched"]);
    expect(r).toEqual({ number: 1, from: "blocked", to: "researched", forced: false, autoCompleted: [] });
    let t = task(dir, 1);
    expect(t.blocked_reason).toBeUndefined();
    expect(t.researched).toMatch(ISO_SECONDS);
    // The reason line Baton wrote goes with the block.
    expect(todoEntry(dir, 1).some((l) => l.includes("Blocked on"))).toBe(false);
    expect(todoStatusOf(dir, 1)).toBe("[RESEARCHED]");

    ok(dir, ["task", "status", "1", "blocked", "-r", "again"]);
    ok(dir, ["task", "status", "1", "planned"]);
    expect(task(dir, 1).planned).toMatch(ISO_SECONDS);
    expect(ok(dir, ["task", "status", "1", "completed", "--summary", "Shipped it"]).stdout).toBe(
      "Task 1: planned → completed\n",
    );
    t = task(dir, 1);
    expect(t.status).toBe("completed");
    expect(t.completed).toMatch(ISO_SECONDS);
    expect(t.completion_summary).toBe("Shipped it");
    expect(t.baton_audit).toBeUndefined();
    expect(todoStatusOf(dir, 1)).toBe("[COMPLETED]");
  });

  it("accepts the TODO.md marker spelling of a status", () => {
    const dir = repo();
    ok(dir, ["task", "add", "Marker spelling", "-l", "general"]);
    ok(dir, ["task", "status", "1", "[BLOCKED]", "-r", "x"]);
    ok(dir, ["task", "status", "1", "NOT STARTED"]);
    expect(task(dir, 1).status).toBe("not_started");
  });
});

describe("--force and --reason", () => {
  it("--force overrides the table and records a baton_audit entry on the task", () => {
    const dir = repo();
    ok(dir, ["task", "add", "Done elsewhere", "-l", "general"]);
    const out = ok(dir, ["task", "status", "1", "completed", "--force", "--reason", "merged upstream"]);
    expect(out.stdout).toBe("Task 1: not_started → completed (forced; audit note recorded)\n");
    const t = task(dir, 1);
    expect(t.status).toBe("completed");
    expect(t.baton_audit).toEqual([
      {
        timestamp: t.last_updated,
        action: "status --force",
        from: "not_started",
        to: "completed",
        note: "merged upstream",
      },
    ]);
    expect(todoStatusOf(dir, 1)).toBe("[COMPLETED]");

    // A second forced move appends; the first note stays.
    ok(dir, ["task", "status", "1", "not_started", "--force"]);
    const audit = task(dir, 1).baton_audit as Array<Record<string, string>>;
    expect(audit).toHaveLength(2);
    expect(audit[1]).toMatchObject({
      action: "status --force",
      from: "completed",
      to: "not_started",
      note: "forced past the lifecycle table",
    });
  });

  it("--force on an allowed move is not recorded as forced", () => {
    const dir = repo();
    ok(dir, ["task", "add", "Plain", "-l", "general"]);
    const r = okJson(dir, ["task", "status", "1", "blocked", "-r", "x", "--force"]);
    expect(r.forced).toBe(false);
    expect(task(dir, 1).baton_audit).toBeUndefined();
  });

  it("blocked requires --reason; without it nothing is written", () => {
    const dir = repo();
    ok(dir, ["task", "add", "Needs a reason", "-l", "general"]);
    const before = snapshotSpecs(dir);
    const result = fails(dir, ["task", "status", "1", "blocked"], 2);
    expect(result.stderr).toContain("blocking a task needs a reason");
    expect(result.stderr).toContain("--reason");
    expectSpecsUnchanged(dir, before);
  });
});
