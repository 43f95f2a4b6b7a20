import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { snapshotFiles, tempStore } from "../testing/store-fixture.js";
import { abandonTasks } from "./archive-ops.js";
import { changeStatus } from "./status-changes.js";
import { mutateStore, readStore } from "./store.js";
import { editTask } from "./task-edit.js";
import { addTask, expandTask } from "./task-ops.js";

let cleanup = () => {};
afterEach(() => cleanup());

async function store(active = 0, archived = 0) {
  const t = await tempStore({ active, archived });
  cleanup = t.cleanup;
  return t;
}

describe("task operations", () => {
  it("adds a task to both files with the original template", async () => {
    const t = await store();
    await mutateStore(t.ctx, { command: "t" }, (tx) =>
      addTask(tx, {
        title: "Fix login bug.",
        description: "Two\nlines",
        priority: "High",
        effort: "2 hours",
      }),
    );
    const state = JSON.parse(readFileSync(t.ctx.paths.state, "utf8"));
    expect(state.next_project_number).toBe(2);
    expect(state.active_projects[0]).toMatchObject({
      project_number: 1,
      project_name: "fix_login_bug",
      status: "not_started",
      language: "general",
      priority: "high",
      effort: "2 hours",
      description: "Two\nlines",
    });
    expect(readFileSync(t.ctx.paths.todo, "utf8")).toMatch(
      /### 1\. Fix login bug\n- \*\*Effort\*\*: 2 hours\n- \*\*Status\*\*: \[NOT STARTED\]\n- \*\*Language\*\*: general\n- \*\*Priority\*\*: high\n- \*\*Created\*\*: \d{4}-\d\d-\d\d\n\n\*\*Description\*\*: Two\nlines\n\n---\n/,
    );
  });

  it("rejects unknown languages, priorities and dependencies without writing", async () => {
    const t = await store(2, 2);
    const before = snapshotFiles(t.repo.specsDir);
    const attempt = (input: Parameters<typeof addTask>[1]) =>
      mutateStore(t.ctx, { command: "t" }, (tx) => addTask(tx, input));
    await expect(attempt({ title: "x", language: "cobol" })).rejects.toThrow(/unknown language "cobol"/);
    await expect(attempt({ title: "x", priority: "urgent" })).rejects.toThrow(/unknown priority "urgent"/);
    await expect(attempt({ title: "x", dependencies: [99] })).rejects.toThrow(
      /dependency 99 is not an active or archived task/,
    );
    await expect(attempt({ title: "   " })).rejects.toThrow(/needs a title/);
    expect(snapshotFiles(t.repo.specsDir)).toEqual(before);
    await attempt({ title: "Depends on an archived task", dependencies: [1, 3] });
  });

  it("edits fields in both files", async () => {
    const t = await store(3);
    await mutateStore(t.ctx, { command: "t" }, (tx) =>
      editTask(tx, 2, { title: "Renamed", priority: "low", dependencies: [1], description: "New text" }),
    );
    const todo = readFileSync(t.ctx.paths.todo, "utf8");
    expect(todo).toContain("### 2. Renamed\n");
    expect(todo).toContain("**Description**: New text\n");
    const task = readStore(t.ctx).state.tasks.find((x) => x.project_number === 2)!;
    expect(task).toMatchObject({ priority: "low", dependencies: [1], description: "New text" });
  });

  it("clears a reason it wrote when a task is unblocked", async () => {
    const t = await store();
    await mutateStore(t.ctx, { command: "t" }, (tx) => {
      addTask(tx, { title: "Waiting task" });
      changeStatus(tx, 1, "blocked", { reason: "upstream bug" });
    });
    expect(readFileSync(t.ctx.paths.todo, "utf8")).toContain("- **Blocked on**: upstream bug\n");
    await mutateStore(t.ctx, { command: "t" }, (tx) => changeStatus(tx, 1, "not_started"));
    expect(readFileSync(t.ctx.paths.todo, "utf8")).not.toContain("- **Blocked on**");
    expect(readStore(t.ctx).state.tasks[0]).not.toHaveProperty("blocked_reason");
  });

  it("completes an expanded parent, and its own parent, when the last subtask ends", async () => {
    const t = await store();
    await mutateStore(t.ctx, { command: "t" }, (tx) => {
      addTask(tx, { title: "Root" });
      expandTask(tx, 1, [{ title: "Middle" }, { title: "Leaf A" }]);
      expandTask(tx, 2, [{ title: "Leaf B" }]);
    });
    let tasks = readStore(t.ctx).state.tasks;
    expect(tasks.find((x) => x.project_number === 1)).toMatchObject({ status: "expanded", subtasks: [2, 3] });
    expect(tasks.find((x) => x.project_number === 4)).toMatchObject({ parent_task: 2 });
    await mutateStore(t.ctx, { command: "t" }, (tx) => {
      changeStatus(tx, 4, "completed", { force: true });
      abandonTasks(tx, [3]);
    });
    tasks = readStore(t.ctx).state.tasks;
    expect(tasks.find((x) => x.project_number === 2)).toMatchObject({
      status: "completed",
      auto_completed: true,
    });
    expect(tasks.find((x) => x.project_number === 1)).toMatchObject({
      status: "completed",
      auto_completed: true,
      completion_summary: "Expanded task auto-completed: 1 subtasks completed, 1 subtasks abandoned",
    });
    expect(readFileSync(t.ctx.paths.todo, "utf8")).toMatch(/### 1\. Root\n[^#]*\[COMPLETED\]/);
  });

  it("records forced changes on the task", async () => {
    const t = await store(1);
    await mutateStore(t.ctx, { command: "t" }, (tx) =>
      changeStatus(tx, 1, "completed", { force: true, reason: "done elsewhere" }),
    );
    const task = readStore(t.ctx).state.tasks[0]!;
    expect(task["baton_audit"]).toEqual([
      {
        timestamp: expect.any(String),
        action: "status --force",
        from: "not_started",
        to: "completed",
        note: "done elsewhere",
      },
    ]);
  });
});

describe("lifecycle timestamps on manual moves", () => {
  it("keeps the original research time when a blocked task goes back to researched", async () => {
    const t = await tempStore({ active: 3 });
    cleanup = t.cleanup;
    const researched = readStore(t.ctx).state.tasks.find((x) => x.project_number === 1)!["researched"];
    expect(researched).toBe("2026-03-16T12:40:00Z");
    await mutateStore(t.ctx, { command: "t" }, (tx) => changeStatus(tx, 1, "blocked", { reason: "r" }));
    await mutateStore(t.ctx, { command: "t" }, (tx) => changeStatus(tx, 1, "researched"));
    expect(readStore(t.ctx).state.tasks.find((x) => x.project_number === 1)!["researched"]).toBe(researched);
  });
});
