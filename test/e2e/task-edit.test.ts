import { describe, expect, it } from "vitest";
import {
  diffLines,
  expectSpecsUnchanged,
  fails,
  generatedRepo,
  ISO_SECONDS,
  ok,
  okJson,
  snapshotSpecs,
  task,
  todoEntry,
} from "./helpers.js";

/**
 * generateRepo({active: 12, archived: 3}): archived 1-3, active 15..4 (newest first). Task 13 depends on
 * 12 and its TODO entry uses the `- **Dependencies:** 12` spelling; task 7 depends on 6 and reads
 * `- **Dependencies**: Task 6 [COMPLETED]`; task 14 has no description in state.json, only in TODO.md.
 */
function fixture() {
  return generatedRepo({ active: 12, archived: 3 }).dir;
}

/** The one-line diff of the task's last_updated, which every edit bumps. */
function expectLastUpdatedOnly(stateDiff: string[], extra: string[] = []): void {
  const keys = stateDiff.map((l) => /^[-+]\s+"(\w+)":/.exec(l)?.[1]);
  expect(keys.sort()).toEqual(["last_updated", "last_updated", ...extra].sort());
  expect(stateDiff).toContain('-      "last_updated": "2026-03-16T23:29:19Z",');
}

describe("task edit", () => {
  it("--title changes only the TODO.md heading (state.json has no title; only last_updated moves)", () => {
    const dir = fixture();
    const oldHeading = todoEntry(dir, 13)[0]!;
    const view = okJson(dir, ["task", "edit", "13", "--title", "  A  better   title. "]);
    expect(view.title).toBe("A better title");
    expect(view.slug).toBe(task(dir, 13).project_name);
    expect(diffLines(dir, "specs/TODO.md")).toEqual([`-${oldHeading}`, "+### 13. A better title"]);
    expectLastUpdatedOnly(diffLines(dir, "specs/state.json"));
    expect(task(dir, 13).last_updated).toMatch(ISO_SECONDS);
  });

  it("--description updates state.json and the TODO.md paragraph, multi-line included", () => {
    const dir = fixture();
    const oldDescription = todoEntry(dir, 13).find((l) => l.startsWith("**Description**:"))!;
    ok(dir, ["task", "edit", "13", "--description", "First line.\nSecond line."]);
    expect(task(dir, 13).description).toBe("First line.\nSecond line.");
    expect(diffLines(dir, "specs/TODO.md")).toEqual([
      `-${oldDescription}`,
      "+**Description**: First line.",
      "+Second line.",
    ]);
    expectLastUpdatedOnly(diffLines(dir, "specs/state.json"), ["description", "description"]);

    // A task whose description lived only in TODO.md gets one in state.json too.
    expect(task(dir, 14).description).toBeUndefined();
    ok(dir, ["task", "edit", "14", "-d", "Now in both files"]);
    expect(task(dir, 14).description).toBe("Now in both files");
    expect(todoEntry(dir, 14)).toContain("**Description**: Now in both files");
    expect(todoEntry(dir, 14).join("\n")).not.toContain("Hand-written description of 14");
  });

  it('--depends validates numbers, accepts archived tasks and ranges, and "none" clears', () => {
    const dir = fixture();
    const before = snapshotSpecs(dir);
    expect(fails(dir, ["task", "edit", "7", "--depends", "99"], 2).stderr).toContain(
      "dependency 99 is not an active or archived task",
    );
    expect(fails(dir, ["task", "edit", "7", "--depends", "5,7"], 2).stderr).toContain(
      "task 7 cannot depend on itself",
    );
    expect(fails(dir, ["task", "edit", "7", "--depends", "5,x"], 2).stderr).toContain(
      '"x" is not a task number',
    );
    expectSpecsUnchanged(dir, before);

    ok(dir, ["task", "edit", "7", "--depends", "2, 14-15"]);
    expect(task(dir, 7).dependencies).toEqual([2, 14, 15]);
    expect(diffLines(dir, "specs/TODO.md")).toEqual([
      "-- **Dependencies**: Task 6 [COMPLETED]",
      "+- **Dependencies**: 2, 14, 15",
    ]);

    ok(dir, ["task", "edit", "13", "--depends", "none"]);
    expect(task(dir, 13)).not.toHaveProperty("dependencies");
    expect(todoEntry(dir, 13).some((l) => /Dependencies/.test(l))).toBe(false);
    expect(okJson(dir, ["task", "show", "13"]).dependencies).toEqual([]);
  });

  it("--language, --priority and --effort update both files", () => {
    const dir = fixture();
    ok(dir, ["task", "edit", "10", "-l", "typst", "-p", "Critical", "-e", "3 days"]);
    const t = task(dir, 10);
    expect([t.language, t.priority, t.effort]).toEqual(["typst", "critical", "3 days"]);
    const entry = todoEntry(dir, 10);
    expect(entry).toContain("- **Language**: typst");
    expect(entry).toContain("- **Priority**: critical");
    expect(entry).toContain("- **Effort**: 3 days");
    expect(entry.filter((l) => /^- \*\*(Language|Priority|Effort)\*\*/.test(l))).toHaveLength(3);
  });

  it("refuses an empty edit, an unknown task and bad values without writing", () => {
    const dir = fixture();
    const before = snapshotSpecs(dir);
    expect(fails(dir, ["task", "edit", "13"], 2).stderr).toContain("nothing to edit");
    expect(fails(dir, ["task", "edit", "99", "-t", "x"], 3).stderr).toContain("task 99 not found");
    expect(fails(dir, ["task", "edit", "13", "-t", "   "], 2).stderr).toContain("the title cannot be empty");
    expect(fails(dir, ["task", "edit", "13", "-l", "cobol"], 2).stderr).toContain('unknown language "cobol"');
    expectSpecsUnchanged(dir, before);
  });
});
