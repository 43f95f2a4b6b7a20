import { existsSync, readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  activeTasks,
  archivedEntries,
  diffLines,
  expectSpecsUnchanged,
  fails,
  generatedRepo,
  ISO_SECONDS,
  ok,
  okJson,
  read,
  repo,
  snapshot,
  snapshotSpecs,
  specs,
  task,
  todoEntry,
  todoNumbers,
  todoStatusOf,
} from "./helpers.js";

function complete(dir: string, n: number): ReturnType<typeof ok> {
  ok(dir, ["task", "status", String(n), "blocked", "-r", "wait"]);
  ok(dir, ["task", "status", String(n), "planned"]);
  return ok(dir, ["task", "status", String(n), "completed", "--json"]);
}

describe("task expand", () => {
  it("turns the parent into an expanded task with subtasks that inherit language and priority", () => {
    const dir = repo();
    ok(dir, ["task", "add", "Big job", "-l", "latex", "-p", "high"]);
    const result = okJson(dir, ["task", "expand", "1", "-s", "Part A", "-s", "Part B"]);
    expect(result).toEqual({ parent: 1, subtasks: [2, 3] });
    const parent = task(dir, 1);
    expect(parent.status).toBe("expanded");
    expect(parent.subtasks).toEqual([2, 3]);
    for (const n of [2, 3]) {
      expect(task(dir, n)).toMatchObject({
        status: "not_started",
        language: "latex",
        priority: "high",
        parent_task: 1,
      });
      expect(todoEntry(dir, n)).toContain("- **Parent**: 1");
    }
    const date = String(parent.last_updated).slice(0, 10);
    expect(todoEntry(dir, 1)).toEqual([
      "### 1. Big job",
      "- **Effort**: TBD",
      "- **Status**: [EXPANDED]",
      "- **Language**: latex",
      `- **Expanded**: ${date}`,
      "- **Subtasks**: 2, 3",
      "- **Priority**: high",
      `- **Created**: ${date}`,
      "",
      "---",
      "",
      "", // the last entry: the file ends with "---\n\n"
    ]);
    expect(todoNumbers(dir)).toEqual([3, 2, 1]);
    ok(dir, ["doctor"]);
  });

  it("completes the parent by itself when the last subtask is completed", () => {
    const dir = repo();
    ok(dir, ["task", "add", "Parent", "-l", "general"]);
    ok(dir, ["task", "expand", "1", "-s", "A", "-s", "B"]);
    expect(JSON.parse(complete(dir, 2).stdout).autoCompleted).toEqual([]);
    expect(task(dir, 1).status).toBe("expanded");
    const last = JSON.parse(complete(dir, 3).stdout);
    expect(last).toEqual({ number: 3, from: "planned", to: "completed", forced: false, autoCompleted: [1] });
    const parent = task(dir, 1);
    expect(parent).toMatchObject({
      status: "completed",
      auto_completed: true,
      completion_summary: "Expanded task auto-completed: 2 subtasks completed",
    });
    expect(parent.completed).toMatch(ISO_SECONDS);
    expect(todoStatusOf(dir, 1)).toBe("[COMPLETED]");
  });

  it("counts an abandoned subtask as done and says so in the summary", () => {
    const dir = repo();
    ok(dir, ["task", "add", "Parent", "-l", "general"]);
    ok(dir, ["task", "expand", "1", "-s", "A", "-s", "B"]);
    complete(dir, 2);
    const out = ok(dir, ["task", "abandon", "3"]);
    expect(out.stdout).toBe("Abandoned and archived: 3\nTask 1: all subtasks done → completed\n");
    expect(task(dir, 1)).toMatchObject({
      status: "completed",
      auto_completed: true,
      completion_summary: "Expanded task auto-completed: 1 subtasks completed, 1 subtasks abandoned",
    });
    expect(todoStatusOf(dir, 1)).toBe("[COMPLETED]");
  });

  it("refuses to expand a completed or already expanded task", () => {
    const dir = repo();
    ok(dir, ["task", "add", "Parent", "-l", "general"]);
    ok(dir, ["task", "expand", "1", "-s", "A"]);
    const before = snapshotSpecs(dir);
    expect(fails(dir, ["task", "expand", "1", "-s", "C"], 1).stderr).toContain(
      "task 1: cannot expand a expanded task",
    );
    expect(fails(dir, ["task", "expand", "1"], 2).stderr).toContain("--subtask");
    expectSpecsUnchanged(dir, before);
  });
});

/**
 * generateRepo({active: 12, archived: 3, naming: "mixed", folders: true}): archived 1-3, active 15..4.
 * 14 researching, 11 planned (folder 11_…), 9 partial (9_…), 8 blocked (008_…, v2 padded), 6 not_started.
 */
function realistic() {
  return generatedRepo({ active: 12, archived: 3, naming: "mixed", folders: true }).dir;
}

/** The folder of task n in specs/, whichever naming (n_… or 00n_…) it uses. */
function folderOf(dir: string, n: number): string | undefined {
  return readdirSync(specs(dir)).find((name) => new RegExp(`^0*${n}_`).test(name));
}

describe("task abandon and task recover", () => {
  it('abandon "11, 8-9": entries prepended to the archive, folders moved, TODO entries removed', () => {
    const dir = realistic();
    const stateBefore = activeTasks(dir);
    const archiveBefore = archivedEntries(dir);
    const folders = Object.fromEntries([8, 9, 11].map((n) => [n, folderOf(dir, n)!]));
    expect(folders[8]).toMatch(/^008_/);
    expect(folders[11]).toMatch(/^11_/);
    const contents = Object.fromEntries([8, 9, 11].map((n) => [n, snapshot(specs(dir, folders[n]!))]));

    const out = okJson(dir, ["task", "abandon", "11, 8-9", "--reason", "superseded"]);
    expect(out).toEqual({ abandoned: [11, 8, 9], autoCompleted: [] });

    const archive = archivedEntries(dir);
    expect(archive).toHaveLength(archiveBefore.length + 3);
    expect(archive.slice(3)).toEqual(archiveBefore);
    expect(archive.slice(0, 3).map((e) => e.project_number)).toEqual([9, 8, 11]);
    for (const entry of archive.slice(0, 3)) {
      const original = stateBefore.find((t) => t.project_number === entry.project_number)!;
      expect(entry).toEqual({
        ...original,
        status: "abandoned",
        abandoned: entry.last_updated,
        last_updated: entry.last_updated,
        abandoned_reason: "superseded",
      });
      expect(entry.abandoned).toMatch(ISO_SECONDS);
    }
    expect(activeTasks(dir)).toEqual(stateBefore.filter((t) => ![8, 9, 11].includes(t.project_number)));

    for (const n of [8, 9, 11]) {
      expect(existsSync(specs(dir, folders[n]!))).toBe(false);
      const moved = snapshot(specs(dir, "archive", folders[n]!));
      expect([...moved.keys()]).toEqual([...contents[n]!.keys()]);
      for (const [path, bytes] of contents[n]!) expect(moved.get(path)!.equals(bytes)).toBe(true);
    }
    expect(todoNumbers(dir)).toEqual([15, 14, 13, 12, 10, 7, 6, 5, 4]);
    // Only whole entries disappear from TODO.md; no other line changes.
    expect(diffLines(dir, "specs/TODO.md").filter((l) => l.startsWith("+"))).toEqual([]);
    ok(dir, ["doctor"]);
  });

  it("abandon refuses an in-progress task unless --force, which records an audit note", () => {
    const dir = realistic();
    const before = snapshotSpecs(dir);
    const refused = fails(dir, ["task", "abandon", "13-14"], 1);
    expect(refused.stderr).toContain("task 14: cannot abandon while it is researching");
    expect(fails(dir, ["task", "abandon", "6", "99"], 3).stderr).toContain("task 99 not found");
    expect(fails(dir, ["task", "abandon", "6-x"], 2).stderr).toContain('"6-x" is not a task number or range');
    expectSpecsUnchanged(dir, before);
    ok(dir, ["task", "abandon", "14", "--force", "-r", "agent died"]);
    expect(archivedEntries(dir)[0]!.baton_audit).toEqual([
      expect.objectContaining({
        action: "abandon --force",
        from: "researching",
        to: "abandoned",
        note: "agent died",
      }),
    ]);
  });

  it("recover brings tasks back as not_started with their folders and TODO entries", () => {
    const dir = realistic();
    const folders = Object.fromEntries([8, 9, 11].map((n) => [n, folderOf(dir, n)!]));
    const files8 = snapshot(specs(dir, folders[8]!));
    ok(dir, ["task", "abandon", "8-9,11"]);
    const archiveAfterAbandon = archivedEntries(dir);

    const out = okJson(dir, ["task", "recover", "8-9"]);
    expect(out.recovered.map((r: { number: number }) => r.number)).toEqual([8, 9]);
    for (const n of [8, 9]) {
      const t = task(dir, n);
      expect(t.status).toBe("not_started");
      expect(t.last_updated).toMatch(ISO_SECONDS);
      expect(todoStatusOf(dir, n)).toBe("[NOT STARTED]");
      expect(existsSync(specs(dir, "archive", folders[n]!))).toBe(false);
      // The folder comes back under the name it had, so the artifact links in state.json stay valid.
      expect(existsSync(specs(dir, folders[n]!)), `${folders[n]} is back`).toBe(true);
    }
    for (const [path, bytes] of files8)
      expect(readFileSync(specs(dir, folders[8]!, path)).equals(bytes)).toBe(true);
    expect(archivedEntries(dir)).toEqual(
      archiveAfterAbandon.filter((e) => ![8, 9].includes(e.project_number)),
    );
    const findings = JSON.parse(ok(dir, ["doctor", "--json"]).stdout).findings as Array<{
      code: string;
      message: string;
    }>;
    expect(findings).toEqual([]);
  });

  it("recover refuses an active or unknown task and writes nothing", () => {
    const dir = realistic();
    ok(dir, ["task", "abandon", "6"]);
    const before = snapshotSpecs(dir);
    expect(fails(dir, ["task", "recover", "7"], 2).stderr).toContain("task 7 is already active");
    expect(fails(dir, ["task", "recover", "6", "42"], 3).stderr).toContain("task 42 not found");
    expectSpecsUnchanged(dir, before);
    ok(dir, ["task", "recover", "6"]);
    expect(read(dir, "TODO.md")).toMatch(
      /### 6\. .*\n- \*\*Effort\*\*: .*\n- \*\*Status\*\*: \[NOT STARTED\]/,
    );
  });
});
