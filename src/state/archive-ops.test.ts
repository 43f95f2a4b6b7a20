import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { tempStore } from "../testing/store-fixture.js";
import { abandonTasks, archiveFinished, recoverTasks } from "./archive-ops.js";
import { loadArchive } from "./load-store.js";
import { changeStatus } from "./status-changes.js";
import { mutateStore, readStore } from "./store.js";
import { addTask } from "./task-ops.js";

let cleanup = () => {};
afterEach(() => cleanup());

describe("archive operations", () => {
  it("archives finished tasks with folders and records orphans without renumbering", async () => {
    const t = await tempStore({ active: 0, archived: 4 });
    cleanup = t.cleanup;
    const folder = join(t.repo.specsDir, "5_done_task", "reports");
    await mutateStore(t.ctx, { command: "t" }, (tx) => {
      addTask(tx, { title: "Done task" });
      addTask(tx, { title: "Still open" });
      changeStatus(tx, 5, "completed", { force: true, summary: "Shipped." });
    });
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, "research-001.md"), "# r\n");
    mkdirSync(join(t.repo.specsDir, "77_lost_work", "plans"), { recursive: true });
    writeFileSync(
      join(t.ctx.paths.dir, "CHANGE_LOG.md"),
      "# Change Log\n\n## Changelog\n\n### 2020-01-01\n\n- old\n",
    );
    const result = await mutateStore(t.ctx, { command: "t" }, (tx) => archiveFinished(tx));
    expect(result.archived).toEqual([{ number: 5, status: "completed", folder: "specs/5_done_task" }]);
    expect(result.orphans).toEqual([{ number: 77, folder: "specs/77_lost_work" }]);
    expect(existsSync(join(t.ctx.paths.archiveDir, "5_done_task", "reports", "research-001.md"))).toBe(true);
    expect(existsSync(join(t.ctx.paths.archiveDir, "77_lost_work"))).toBe(true);
    const archive = loadArchive(t.ctx.paths).entries;
    expect(archive).toHaveLength(6);
    expect(archive[0]).toMatchObject({
      project_number: 77,
      status: "orphan_archived",
      detected_artifacts: ["plans/"],
    });
    expect(archive[1]).toMatchObject({
      project_number: 5,
      source: "archival",
      completion_summary: "Shipped.",
    });
    expect(readStore(t.ctx).state.tasks.map((x) => x.project_number)).toEqual([6]);
    // The orphan's number is held by its archive entry and skipped when the numbering reaches it.
    expect(readStore(t.ctx).state.doc.value.next_project_number).toBe(7);
    expect(readFileSync(join(t.ctx.paths.dir, "CHANGE_LOG.md"), "utf8")).toMatch(
      /## Changelog\n\n### \d{4}-\d\d-\d\d\n\n- \*\*Task 5\*\*: Shipped\.\n\n### 2020-01-01/,
    );
  });

  it("keeps both folders when the archive already has one of the same name", async () => {
    const t = await tempStore({ active: 0 });
    cleanup = t.cleanup;
    await mutateStore(t.ctx, { command: "t" }, (tx) => addTask(tx, { title: "Twin" }));
    mkdirSync(join(t.ctx.paths.dir, "1_twin"));
    writeFileSync(join(t.ctx.paths.dir, "1_twin", "new.md"), "new");
    mkdirSync(join(t.ctx.paths.archiveDir, "1_twin"), { recursive: true });
    writeFileSync(join(t.ctx.paths.archiveDir, "1_twin", "old.md"), "old");
    await mutateStore(t.ctx, { command: "t" }, (tx) => abandonTasks(tx, [1]));
    expect(readFileSync(join(t.ctx.paths.archiveDir, "1_twin", "old.md"), "utf8")).toBe("old");
    expect(readFileSync(join(t.ctx.paths.archiveDir, "1_twin-2", "new.md"), "utf8")).toBe("new");
    expect(loadArchive(t.ctx.paths).entries[0]).toMatchObject({ archive_folder: "specs/archive/1_twin-2" });
    await mutateStore(t.ctx, { command: "t" }, (tx) => recoverTasks(tx, [1]));
    expect(readFileSync(join(t.ctx.paths.dir, "1_twin", "new.md"), "utf8")).toBe("new");
    expect(readStore(t.ctx).state.tasks[0]).not.toHaveProperty("archive_folder");
  });

  it("recovers an orphan entry with its renamed folder", async () => {
    const t = await tempStore({ active: 0 });
    cleanup = t.cleanup;
    writeFileSync(
      t.ctx.paths.archiveState,
      JSON.stringify({
        archived_projects: [],
        completed_projects: [
          {
            project_number: 9630,
            project_name: "group_refactor",
            status: "orphan_archived",
            source: "orphan_recovery",
            original_dirname: "963_group_refactor",
          },
        ],
      }),
    );
    mkdirSync(join(t.ctx.paths.archiveDir, "963_group_refactor", "reports"), { recursive: true });
    await mutateStore(t.ctx, { command: "t" }, (tx) => recoverTasks(tx, [9630]));
    expect(existsSync(join(t.ctx.paths.dir, "9630_group_refactor", "reports"))).toBe(true);
    expect(readStore(t.ctx).state.tasks[0]).toMatchObject({
      project_number: 9630,
      status: "not_started",
      language: "general",
    });
    expect(readFileSync(t.ctx.paths.todo, "utf8")).toContain("### 9630. Group refactor\n");
    expect(loadArchive(t.ctx.paths).entries).toEqual([]);
  });
});
