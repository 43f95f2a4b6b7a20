import { execFileSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { snapshotFiles, tempStore } from "../testing/store-fixture.js";
import { runDoctorChecks } from "./doctor-checks.js";
import { changeStatus } from "./status-changes.js";
import { mutateStore, readStore } from "./store.js";
import { addTask } from "./task-ops.js";

let cleanup = () => {};
afterEach(() => cleanup());

describe("the store's write path", () => {
  it("writes nothing when the mutation throws", async () => {
    const t = await tempStore({ active: 5, archived: 3 });
    cleanup = t.cleanup;
    const before = snapshotFiles(t.repo.specsDir);
    await expect(
      mutateStore(t.ctx, { command: "test" }, (tx) => {
        addTask(tx, { title: "Doomed" });
        throw new Error("changed my mind");
      }),
    ).rejects.toThrow("changed my mind");
    expect(snapshotFiles(t.repo.specsDir)).toEqual({ ...before });
  });

  it("refuses a result with a duplicate task number", async () => {
    const t = await tempStore({ active: 3 });
    cleanup = t.cleanup;
    const before = snapshotFiles(t.repo.specsDir);
    await expect(
      mutateStore(t.ctx, { command: "test" }, (tx) => {
        tx.tasks.push({ ...tx.tasks[0]! });
      }),
    ).rejects.toThrow(/task 3 would appear twice/);
    expect(snapshotFiles(t.repo.specsDir)).toEqual(before);
  });

  it("refuses to drop archive entries", async () => {
    const t = await tempStore({ active: 2, archived: 10 });
    cleanup = t.cleanup;
    const before = snapshotFiles(t.repo.specsDir);
    await expect(
      mutateStore(t.ctx, { command: "test" }, (tx) => {
        tx.archive().entries.splice(0, 5);
      }),
    ).rejects.toThrow(/would lose archive entries \(10 expected, 5 present\)/);
    expect(snapshotFiles(t.repo.specsDir)).toEqual(before);
  });

  it("refuses to replace an archive entry even when the count stays the same", async () => {
    const t = await tempStore({ active: 2, archived: 4 });
    cleanup = t.cleanup;
    const before = snapshotFiles(t.repo.specsDir);
    await expect(
      mutateStore(t.ctx, { command: "test" }, (tx) => {
        const entries = tx.archive().entries;
        entries.splice(0, 1, { project_number: 99, project_name: "impostor", status: "completed" });
      }),
    ).rejects.toThrow(/would lose archive entries \(4 expected, 3 present\)/);
    expect(snapshotFiles(t.repo.specsDir)).toEqual(before);
  });

  it("leaves untouched files byte-identical, even when loaded", async () => {
    const t = await tempStore({ active: 4, archived: 4 });
    cleanup = t.cleanup;
    const before = snapshotFiles(t.repo.specsDir);
    await mutateStore(t.ctx, { command: "test" }, (tx) => {
      tx.archive();
      tx.errors();
    });
    expect(snapshotFiles(t.repo.specsDir)).toEqual(before);
  });

  it("allocates numbers past archived ones and keeps both next numbers equal", async () => {
    const t = await tempStore({ active: 1, archived: 3 });
    cleanup = t.cleanup;
    const archive = JSON.parse(readFileSync(t.ctx.paths.archiveState, "utf8"));
    archive.completed_projects.push({ project_number: 5, project_name: "stray", status: "completed" });
    writeFileSync(t.ctx.paths.archiveState, JSON.stringify(archive, null, 2));
    const task = await mutateStore(t.ctx, { command: "test" }, (tx) => addTask(tx, { title: "Next" }));
    expect(task.project_number).toBe(6);
    expect(JSON.parse(readFileSync(t.ctx.paths.state, "utf8")).next_project_number).toBe(7);
    expect(readFileSync(t.ctx.paths.todo, "utf8")).toContain("next_project_number: 7\n");
  });

  it("heals a lower TODO frontmatter number on the next write (the higher one wins)", async () => {
    const t = await tempStore({ active: 2 });
    cleanup = t.cleanup;
    writeFileSync(
      t.ctx.paths.todo,
      readFileSync(t.ctx.paths.todo, "utf8").replace("next_project_number: 3", "next_project_number: 1"),
    );
    await mutateStore(t.ctx, { command: "test" }, (tx) => changeStatus(tx, 2, "blocked", { reason: "r" }));
    expect(readFileSync(t.ctx.paths.todo, "utf8")).toContain("next_project_number: 3\n");
    expect(runDoctorChecks(t.ctx).filter((f) => f.severity === "error")).toEqual([]);
  });

  it("records the task's title only in TODO.md and reads it back", async () => {
    const t = await tempStore({ active: 0 });
    cleanup = t.cleanup;
    await mutateStore(t.ctx, { command: "test" }, (tx) => addTask(tx, { title: "A human title" }));
    const snapshot = readStore(t.ctx);
    expect(snapshot.state.tasks[0]).not.toHaveProperty("title");
    expect(snapshot.todo.source).toContain("### 1. A human title");
  });
});

describe("files that do not exist yet", () => {
  it("are not created by merely reading them", async () => {
    const t = await tempStore({ active: 2 });
    cleanup = t.cleanup;
    const { rmSync, existsSync } = await import("node:fs");
    rmSync(t.ctx.paths.archiveState);
    rmSync(t.ctx.paths.errors);
    await mutateStore(t.ctx, { command: "test" }, (tx) => {
      tx.archive();
      tx.errors();
      changeStatus(tx, 1, "blocked", { reason: "r" });
    });
    expect(existsSync(t.ctx.paths.archiveState), "archive").toBe(false);
    expect(existsSync(t.ctx.paths.errors), "errors").toBe(false);
  });

  it("are created when an entry is added", async () => {
    const t = await tempStore({ active: 2 });
    cleanup = t.cleanup;
    const { rmSync } = await import("node:fs");
    const { appendError } = await import("./errors-log.js");
    rmSync(t.ctx.paths.errors);
    await mutateStore(t.ctx, { command: "test" }, (tx) => {
      appendError(tx, {
        type: "timeout",
        severity: "high",
        message: "agent hung",
        task: 1,
        checkpoint: "DELEGATE",
      });
    });
    const written = JSON.parse(readFileSync(t.ctx.paths.errors, "utf8"));
    expect(written.errors).toHaveLength(1);
    expect(written.errors[0]).toMatchObject({
      type: "timeout",
      context: { task: 1, checkpoint: "DELEGATE" },
      fix_status: "unfixed",
    });
  });
});

describe("the canonical-form hint", () => {
  it("is invalidated by a hand edit, so hand formatting survives the next write", async () => {
    const t = await tempStore({ active: 3 });
    cleanup = t.cleanup;
    await mutateStore(t.ctx, { command: "test" }, (tx) => changeStatus(tx, 1, "blocked", { reason: "r" }));
    const compact = readFileSync(t.ctx.paths.state, "utf8").replace(
      /"dependencies": \[\n\s+(\d+)\n\s+\]/,
      '"dependencies": [$1]',
    );
    expect(compact).toMatch(/"dependencies": \[\d+\]/);
    writeFileSync(t.ctx.paths.state, compact);
    await mutateStore(t.ctx, { command: "baton adopt", adopt: true }, () => {});
    await mutateStore(t.ctx, { command: "test" }, (tx) => changeStatus(tx, 1, "not_started"));
    const after = readFileSync(t.ctx.paths.state, "utf8");
    expect(after).toMatch(/"dependencies": \[\d+\]/);
    expect(
      JSON.parse(after).active_projects.find((x: { project_number: number }) => x.project_number === 1)
        .status,
    ).toBe("not_started");
  });
});

describe("a store file changed outside Baton, outside any session", () => {
  const git = (dir: string, args: string[]) => execFileSync("git", args, { cwd: dir, encoding: "utf8" });
  const commitAll = (dir: string, message: string) => {
    git(dir, ["add", "-A"]);
    git(dir, ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", message]);
  };

  it("stops the next write until a person accepts the edit, and loses nothing", async () => {
    const t = await tempStore({ active: 3 });
    cleanup = t.cleanup;
    await mutateStore(t.ctx, { command: "test" }, (tx) => changeStatus(tx, 1, "blocked", { reason: "r" }));
    const edited = readFileSync(t.ctx.paths.todo, "utf8").replace("[BLOCKED]", "[COMPLETED]");
    writeFileSync(t.ctx.paths.todo, edited);
    const before = snapshotFiles(t.ctx.paths.dir);
    const refused = mutateStore(t.ctx, { command: "test" }, (tx) => addTask(tx, { title: "Another" }));
    await expect(refused).rejects.toMatchObject({
      code: "STORE_CHANGED",
      message: expect.stringContaining("specs/TODO.md"),
      hint: expect.stringContaining("baton adopt"),
    });
    expect(snapshotFiles(t.ctx.paths.dir)).toEqual(before);
    // Reads are not writes: they still see the person's file.
    expect(readFileSync(t.ctx.paths.todo, "utf8")).toBe(edited);

    await mutateStore(t.ctx, { command: "baton adopt", adopt: true }, () => {});
    await mutateStore(t.ctx, { command: "test" }, (tx) => addTask(tx, { title: "Another" }));
    expect(readFileSync(t.ctx.paths.todo, "utf8")).toContain("[COMPLETED]");
  });

  it("takes in what git put there: a checkout of a committed version is not an unaccepted edit", async () => {
    const t = await tempStore({ active: 3, archived: 2 });
    cleanup = t.cleanup;
    const n = t.repo.activeNumbers[0]!;
    await mutateStore(t.ctx, { command: "test" }, (tx) => changeStatus(tx, n, "blocked", { reason: "r" }));
    commitAll(t.dir, "blocked");
    await mutateStore(t.ctx, { command: "test" }, (tx) => changeStatus(tx, n, "not_started"));
    // Back to the committed version, as a checkout, a pull or a reset would leave it.
    git(t.dir, ["checkout", "--", "specs/state.json", "specs/TODO.md"]);
    await mutateStore(t.ctx, { command: "test" }, (tx) => addTask(tx, { title: "Another" }));
    const tasks = readStore(t.ctx).state.tasks;
    expect(tasks.find((x) => x.project_number === n)?.status).toBe("blocked");
    expect(tasks.map((x) => x.project_name)).toContain("another");
    // A deleted file that HEAD holds is an edit like any other.
    commitAll(t.dir, "more");
    rmSync(t.ctx.paths.archiveState);
    await expect(
      mutateStore(t.ctx, { command: "test" }, (tx) => addTask(tx, { title: "A third" })),
    ).rejects.toMatchObject({
      code: "STORE_CHANGED",
      message: expect.stringContaining("archive/state.json (deleted)"),
    });
  });
});
