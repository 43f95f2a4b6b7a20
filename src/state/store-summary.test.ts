import { readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { storeInternalPaths } from "../shared/baton-paths.js";
import { tempStore } from "../testing/store-fixture.js";
import { rememberOffsets } from "./entry-offsets.js";
import { changeStatus } from "./status-changes.js";
import { mutateStore, readStore } from "./store.js";
import { readStoreSummary } from "./store-summary.js";
import { readTaskDetail } from "./task-detail.js";
import { addTask } from "./task-ops.js";
import { findEntry } from "./todo-document.js";
import { taskViews } from "./views.js";

let cleanup = () => {};
afterEach(() => cleanup());

/** What `task list` shows, from the files themselves: the summary must always equal it. */
const fresh = (ctx: Parameters<typeof readStore>[0]) =>
  taskViews(readStore(ctx)).map(({ number, status, language, title, todoStatus, irregular }) => ({
    number,
    status,
    language,
    title,
    ...(todoStatus !== undefined ? { todoStatus } : {}),
    ...(irregular ? { irregular } : {}),
  }));

describe("the store summary behind task list", () => {
  it("always equals a fresh read: after Baton's writes, a hand edit of the same size, and a broken cache", async () => {
    const t = await tempStore({ active: 30, archived: 5 });
    cleanup = t.cleanup;
    await mutateStore(t.ctx, { command: "test" }, (tx) => addTask(tx, { title: "First one" }));
    expect((await readStoreSummary(t.ctx)).rows).toEqual(fresh(t.ctx));
    const cache = storeInternalPaths(t.ctx.paths.internalDir).summaryCache;
    expect(readFileSync(cache, "utf8")).toContain("First one");
    // A write keeps the summary current (written under the lock with the files).
    const task = await mutateStore(t.ctx, { command: "test" }, (tx) => addTask(tx, { title: "Second one" }));
    expect(readFileSync(cache, "utf8")).toContain("Second one");
    await mutateStore(t.ctx, { command: "test" }, (tx) =>
      changeStatus(tx, task.project_number, "blocked", { reason: "waiting" }),
    );
    expect((await readStoreSummary(t.ctx)).rows).toEqual(fresh(t.ctx));
    // A hand edit of the same length, with the modification time put back: the change time still differs.
    const todoPath = join(t.repo.specsDir, "TODO.md");
    const before = readFileSync(todoPath, "utf8");
    writeFileSync(todoPath, before.replace("Second one", "Second two"));
    utimesSync(todoPath, new Date(0), new Date(0));
    const rows = (await readStoreSummary(t.ctx)).rows;
    expect(rows.find((r) => r.number === task.project_number)?.title).toBe("Second two");
    expect(rows).toEqual(fresh(t.ctx));
    // A cache of another shape is no cache.
    writeFileSync(cache, '{"key":"x","rows":[[1]],"taskType":{}}');
    expect((await readStoreSummary(t.ctx)).rows).toEqual(fresh(t.ctx));
    writeFileSync(cache, "{ truncated");
    expect((await readStoreSummary(t.ctx)).rows).toEqual(fresh(t.ctx));
  });
});

describe("task show from the entry offsets", () => {
  it("reads exactly each task's own entries, after writes, with a BOM, CRLF lines and wide characters", async () => {
    const t = await tempStore({ active: 25, archived: 3 });
    cleanup = t.cleanup;
    const todoPath = join(t.repo.specsDir, "TODO.md");
    writeFileSync(todoPath, `\uFEFF${readFileSync(todoPath, "utf8").replace(/\n/g, "\r\n")}`);
    await mutateStore(t.ctx, { command: "test" }, (tx) => addTask(tx, { title: "Prüfe die Ränder — 測試" }));
    await readStoreSummary(t.ctx);
    const snapshot = readStore(t.ctx);
    for (const task of snapshot.state.tasks) {
      const detail = readTaskDetail(t.ctx, task.project_number);
      expect(detail?.task).toEqual(task);
      expect(detail?.entry?.render("\n")).toBe(findEntry(snapshot.todo, task.project_number)?.render("\n"));
    }
    // Any change to the files and the offsets are not used.
    writeFileSync(todoPath, readFileSync(todoPath, "utf8").replace("Prüfe", "Pruefe"));
    expect(readTaskDetail(t.ctx, snapshot.state.tasks[0]!.project_number)).toBeNull();
  });
});

describe("the kept offsets", () => {
  it("come back after a full read when lost, while the summary itself is still valid", async () => {
    const t = await tempStore({ active: 5 });
    cleanup = t.cleanup;
    await mutateStore(t.ctx, { command: "test" }, (tx) => addTask(tx, { title: "Kept" }));
    const offsets = storeInternalPaths(t.ctx.paths.internalDir).offsetsCache;
    rmSync(offsets);
    expect(readTaskDetail(t.ctx, 1)).toBeNull();
    rememberOffsets(t.ctx, readStore(t.ctx));
    expect(readTaskDetail(t.ctx, 1)?.task.project_number).toBe(1);
  });
});
