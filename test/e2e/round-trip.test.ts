import { writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { commitAll, diffLines, generatedRepo, git, ISO_SECONDS, ok, read, specs, task } from "./helpers.js";

/**
 * generateRepo({active: 30, archived: 20, naming: "mixed", folders: true}): active 50..21, archived 1..20,
 * next 51; statuses cycle from 50 (not_started) so task 43 is blocked and 42 completed. TODO.md has a
 * curated "## Task Order" section, an HTML comment and a trailing "## Notes" paragraph; state.json carries
 * legacy top-level keys and unknown task fields; errors.json is hand-formatted.
 */
function realistic() {
  return generatedRepo({ active: 30, archived: 20, naming: "mixed", folders: true });
}

const HEAD = (dir: string, path: string) => git(dir, ["show", `HEAD:${path}`]);

function changedPaths(dir: string): string[] {
  return git(dir, ["status", "--porcelain", "--untracked-files=all"])
    .split("\n")
    .filter(Boolean)
    .map((l) => l.slice(3))
    .sort();
}

const CURATED = [
  "<!-- Curated by hand: keep this comment -->\n\n## Task Order\n\n1. Finish the parser work first\n2. Then 50\n\n## Tasks\n",
  "## Notes\n\nA closing paragraph that Baton must keep byte for byte.\n",
  'task_counts:\n  active: 7\n  total: 743\ntechnical_debt:\n  sorry_count: 16\n  sorry_count_note: "Excluding Boneyard"\n---\n',
];

describe("round trip on a realistic repository", () => {
  it("an unrelated status change touches only that task's status line and its status/last_updated", () => {
    const { dir } = realistic();
    const todoBefore = HEAD(dir, "specs/TODO.md");
    const stateBefore = JSON.parse(HEAD(dir, "specs/state.json"));
    expect(task(dir, 43).status).toBe("blocked");

    ok(dir, ["task", "status", "43", "not_started"]);

    expect(changedPaths(dir)).toEqual(["specs/TODO.md", "specs/state.json"]);

    // TODO.md: one line, the status line inside entry 43, and nothing else.
    const lines = todoBefore.split("\n");
    const heading = lines.indexOf(lines.find((l) => l.startsWith("### 43. "))!);
    const statusAt = lines.findIndex((l, i) => i > heading && l === "- **Status**: [BLOCKED]");
    expect(lines.slice(heading, statusAt).some((l) => l.startsWith("### ") && l !== lines[heading])).toBe(
      false,
    );
    const hunk = git(dir, ["diff", "-U0", "--", "specs/TODO.md"])
      .split("\n")
      .filter((l) => l.startsWith("@@"));
    expect(hunk).toEqual([expect.stringMatching(new RegExp(`^@@ -${statusAt + 1} \\+${statusAt + 1} @@`))]);
    expect(diffLines(dir, "specs/TODO.md")).toEqual([
      "-- **Status**: [BLOCKED]",
      "+- **Status**: [NOT STARTED]",
    ]);
    lines[statusAt] = "- **Status**: [NOT STARTED]";
    expect(read(dir, "TODO.md")).toBe(lines.join("\n"));
    for (const block of CURATED) expect(read(dir, "TODO.md")).toContain(block);

    // state.json: exactly the two fields of task 43; legacy keys and unknown task fields are untouched.
    const stateDiff = diffLines(dir, "specs/state.json");
    expect(stateDiff).toHaveLength(4);
    expect(stateDiff.slice(0, 2)).toEqual(['-      "status": "blocked",', '+      "status": "not_started",']);
    expect(stateDiff[2]).toBe('-      "last_updated": "2026-03-16T23:29:19Z",');
    const stateAfter = JSON.parse(read(dir, "state.json"));
    const after43 = stateAfter.active_projects.find(
      (t: { project_number: number }) => t.project_number === 43,
    );
    expect(after43.last_updated).toMatch(ISO_SECONDS);
    const expected = structuredClone(stateBefore);
    Object.assign(
      expected.active_projects.find((t: { project_number: number }) => t.project_number === 43),
      {
        status: "not_started",
        last_updated: after43.last_updated,
      },
    );
    expect(stateAfter).toEqual(expected);
    expect(Object.keys(stateAfter)).toEqual(Object.keys(stateBefore));
  });

  it("task add touches only next_project_number and inserts one entry under ## Tasks", () => {
    const { dir } = realistic();
    const out = JSON.parse(ok(dir, ["task", "add", "Brand new work", "-l", "general", "--json"]).stdout);
    expect(out.number).toBe(51);
    expect(changedPaths(dir)).toEqual(["specs/TODO.md", "specs/state.json"]);
    const date = String(task(dir, 51).created).slice(0, 10);
    expect(diffLines(dir, "specs/TODO.md")).toEqual([
      "-next_project_number: 51",
      "+next_project_number: 52",
      "+### 51. Brand new work",
      "+- **Effort**: TBD",
      "+- **Status**: [NOT STARTED]",
      "+- **Language**: general",
      `+- **Created**: ${date}`,
      "+",
      "+---",
      "+",
    ]);
    expect(read(dir, "TODO.md")).toContain("## Tasks\n\n### 51. Brand new work\n");
    for (const block of CURATED) expect(read(dir, "TODO.md")).toContain(block);
    const before = JSON.parse(HEAD(dir, "specs/state.json"));
    const after = JSON.parse(read(dir, "state.json"));
    expect(after.next_project_number).toBe(52);
    expect(after.active_projects.slice(1)).toEqual(before.active_projects);
    expect({ ...after, active_projects: [], next_project_number: 0 }).toEqual({
      ...before,
      active_projects: [],
      next_project_number: 0,
    });
  });

  it("a hand-formatted state.json gets a minimal edit, not a reformat", () => {
    const { dir } = realistic();
    const canonical = read(dir, "state.json");
    const compact = canonical
      .replace(
        /"metadata": \{[^}]*\}/,
        '"metadata": {"generated_at": "2026-01-20T20:55:08.000000", "total_tasks": 24, "last_sync": "2026-03-14T22:30:00Z"}',
      )
      .replace(
        /"plan_metadata": \{[^}]*\}/g,
        '"plan_metadata": {"phases": 3, "total_effort_hours": 6, "complexity": "medium"}',
      );
    expect(compact).not.toBe(canonical);
    writeFileSync(specs(dir, "state.json"), compact);
    commitAll(dir, "hand formatting");

    ok(dir, ["task", "status", "43", "not_started"]);
    const diff = diffLines(dir, "specs/state.json");
    expect(diff.filter((l) => l.startsWith("-"))).toEqual([
      '-      "status": "blocked",',
      '-      "last_updated": "2026-03-16T23:29:19Z",',
    ]);
    expect(diff.filter((l) => l.startsWith("+"))).toHaveLength(2);
    expect(read(dir, "state.json")).toContain(
      '"plan_metadata": {"phases": 3, "total_effort_hours": 6, "complexity": "medium"}',
    );
  });

  it("a CRLF TODO.md stays CRLF", () => {
    const { dir } = realistic();
    const crlf = read(dir, "TODO.md").replace(/\n/g, "\r\n");
    writeFileSync(specs(dir, "TODO.md"), crlf);
    commitAll(dir, "crlf");
    ok(dir, ["task", "status", "43", "not_started"]);
    expect(read(dir, "TODO.md")).toBe(
      crlf.replace(
        /(### 43\. [^\r]*\r\n(?:[^\r]*\r\n)*?)- \*\*Status\*\*: \[BLOCKED\]/,
        "$1- **Status**: [NOT STARTED]",
      ),
    );
    expect(read(dir, "TODO.md")).not.toMatch(/[^\r]\n/);
  });

  it("a series of mutations keeps every curated byte and never touches errors.json", () => {
    const { dir } = realistic();
    const errorsBefore = read(dir, "errors.json");
    ok(dir, ["task", "add", "Series one", "-l", "general"]);
    ok(dir, ["task", "edit", "50", "-t", "Renamed fifty", "-d", "New words"]);
    ok(dir, ["task", "status", "45", "partial"]);
    ok(dir, ["task", "expand", "50", "-s", "Part A", "-s", "Part B"]);
    ok(dir, ["task", "abandon", "41"]);
    ok(dir, ["archive"]);
    ok(dir, ["doctor"]);
    expect(read(dir, "errors.json")).toBe(errorsBefore);
    for (const block of CURATED) expect(read(dir, "TODO.md")).toContain(block);
    const after = JSON.parse(read(dir, "state.json"));
    const before = JSON.parse(HEAD(dir, "specs/state.json"));
    for (const key of ["metadata", "completed_projects", "artifacts", "task_counts", "repository_health"]) {
      expect(after[key], key).toEqual(before[key]);
    }
    // Unknown per-task fields survive on tasks that were touched and on those that were not.
    const byNumber = (s: { active_projects: Array<Record<string, unknown>> }, n: number) =>
      s.active_projects.find((t) => t.project_number === n)!;
    expect(byNumber(before, 45).plan_metadata).toBeDefined();
    expect(byNumber(after, 45).plan_metadata).toEqual(byNumber(before, 45).plan_metadata);
    for (const n of [47, 37]) expect(byNumber(after, n)).toEqual(byNumber(before, n));
    expect(byNumber(after, 45).next_artifact_number).toBe(byNumber(before, 45).next_artifact_number);
  });
});
