import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  activeTasks,
  archivedEntries,
  commitAll,
  expectSpecsUnchanged,
  generatedRepo,
  ISO_SECONDS,
  ok,
  okJson,
  read,
  runBaton,
  snapshot,
  snapshotSpecs,
  specs,
  task,
  todoNumbers,
  write,
} from "./helpers.js";

const CHANGE_LOG = "# Change Log\n\n## Changelog\n\n### 2026-01-01\n\n- **Task 0**: old\n";
const ROAD_MAP =
  "# Road map\n\n- [ ] Ship the parser (Task 11)\n- [ ] Drop legacy mode (Task 10)\n- [ ] Unrelated item\n";

/**
 * generateRepo({active: 12, archived: 3, naming: "mixed", folders: true, orphan: true}): archived 1-3,
 * active 15..4, next 16, orphan folder 66_forgotten_experiment. Then: task 11 (planned, folder 11_…) is
 * completed with a summary; task 10 (implementing, folder 010_…) is set to abandoned by hand in both
 * files, as the original left some; task 7 is completed (folder 7_…); a folder for archived task 2 sits in
 * specs/ (misplaced); CHANGE_LOG.md and ROAD_MAP.md exist. Committed.
 */
function fixture() {
  const { dir } = generatedRepo({ active: 12, archived: 3, naming: "mixed", folders: true, orphan: true });
  ok(dir, ["task", "status", "11", "completed", "--summary", "Parser shipped"]);
  const state = JSON.parse(read(dir, "state.json"));
  state.active_projects.find((t: { project_number: number }) => t.project_number === 10).status = "abandoned";
  write(dir, "state.json", `${JSON.stringify(state, null, 2)}\n`);
  write(
    dir,
    "TODO.md",
    read(dir, "TODO.md").replace(
      /(### 10\. [^\n]*\n(?:[^\n]*\n)*?- \*\*Status\*\*: )\[IMPLEMENTING\]/,
      "$1[ABANDONED]",
    ),
  );
  mkdirSync(specs(dir, "2_archived_task_2", "reports"), { recursive: true });
  writeFileSync(specs(dir, "2_archived_task_2", "reports", "late.md"), "late\n");
  write(dir, "CHANGE_LOG.md", CHANGE_LOG);
  write(dir, "ROAD_MAP.md", ROAD_MAP);
  commitAll(dir, "fixture");
  expect(task(dir, 10).status).toBe("abandoned");
  return dir;
}

const folderNames = {
  11: "11_",
  10: "010_",
  7: "7_",
};

function folderFor(files: Map<string, Buffer>, prefix: string): string {
  const name = [...files.keys()].map((p) => p.split("/")[0]!).find((n) => n.startsWith(prefix));
  if (!name) throw new Error(`no folder ${prefix}*`);
  return name;
}

describe("archive", () => {
  it("--dry-run reports the plan and writes nothing", () => {
    const dir = fixture();
    const before = snapshotSpecs(dir);
    const result = okJson(dir, ["archive", "--dry-run"]);
    expect(result.dryRun).toBe(true);
    expect(result.archived.map((a: { number: number; status: string }) => [a.number, a.status])).toEqual([
      [11, "completed"],
      [10, "abandoned"],
      [7, "completed"],
    ]);
    expect(result.orphans).toEqual([{ number: 66, folder: "specs/66_forgotten_experiment" }]);
    expect(result.misplaced).toEqual([{ number: 2, folder: "specs/2_archived_task_2" }]);
    const human = ok(dir, ["archive", "-n"]).stdout;
    expect(human).toContain("Would archive 3 task(s): 11 (completed), 10 (abandoned), 7 (completed)\n");
    expect(human).toContain("Would record orphan folder specs/66_forgotten_experiment as task 66\n");
    expectSpecsUnchanged(dir, before);
  });

  it("moves finished tasks and their folders, records the orphan, keeps every old entry", () => {
    const dir = fixture();
    const before = snapshotSpecs(dir);
    const activeBefore = activeTasks(dir);
    const archiveBefore = archivedEntries(dir);
    const result = okJson(dir, ["archive"]);
    expect(result.dryRun).toBe(false);
    expect(result.archived.map((a: { number: number }) => a.number)).toEqual([11, 10, 7]);
    expect(result.changeLogEntries).toBe(2);

    const archive = archivedEntries(dir);
    expect(archive).toHaveLength(archiveBefore.length + 4);
    expect(archive.slice(4)).toEqual(archiveBefore);
    expect(archive.map((e) => e.project_number).slice(0, 4)).toEqual([66, 11, 10, 7]);
    for (const entry of archive.slice(1, 4)) {
      const original = activeBefore.find((t) => t.project_number === entry.project_number)!;
      expect(entry).toEqual({ ...original, archived: entry.archived, source: "archival" });
      expect(entry.archived).toMatch(ISO_SECONDS);
    }
    expect(archive[0]).toEqual({
      project_number: 66,
      project_name: "forgotten_experiment",
      status: "orphan_archived",
      archived: archive[1]!.archived,
      source: "orphan_recovery",
      detected_artifacts: ["reports/"],
    });

    expect(activeTasks(dir)).toEqual(activeBefore.filter((t) => ![11, 10, 7].includes(t.project_number)));
    expect(todoNumbers(dir)).toEqual([15, 14, 13, 12, 9, 8, 6, 5, 4]);

    // Folders (finished, orphan, misplaced) moved byte for byte into specs/archive/.
    for (const prefix of [...Object.values(folderNames), "66_forgotten_experiment", "2_archived_task_2"]) {
      const name = folderFor(before, prefix);
      expect(existsSync(specs(dir, name)), name).toBe(false);
      const moved = snapshot(specs(dir, "archive", name));
      for (const [path, bytes] of before) {
        if (path.startsWith(`${name}/`))
          expect(moved.get(path.slice(name.length + 1))?.equals(bytes), path).toBe(true);
      }
    }
  });

  it("adds CHANGE_LOG.md entries for completed tasks (newest date first) and annotates ROAD_MAP.md", () => {
    const dir = fixture();
    const completedAt = String(task(dir, 11).completed).slice(0, 10);
    ok(dir, ["archive"]);
    expect(read(dir, "CHANGE_LOG.md")).toBe(
      [
        "# Change Log",
        "",
        "## Changelog",
        "",
        `### ${completedAt}`,
        "",
        "- **Task 11**: Parser shipped",
        "",
        "### 2026-03-16",
        "",
        "- **Task 7**: Completed",
        "",
        "### 2026-01-01",
        "",
        "- **Task 0**: old",
        "",
      ].join("\n"),
    );
    const today = new Date().toISOString().slice(0, 10);
    expect(read(dir, "ROAD_MAP.md")).toBe(
      [
        "# Road map",
        "",
        `- [x] Ship the parser (Task 11) *(Completed: Task 11, ${today})*`,
        "- [ ] Drop legacy mode (Task 10) *(Task 10 abandoned: abandoned)*",
        "- [ ] Unrelated item",
        "",
      ].join("\n"),
    );
  });

  it("is idempotent: a second run archives nothing and changes no byte", () => {
    const dir = fixture();
    ok(dir, ["archive"]);
    const before = snapshotSpecs(dir);
    const second = ok(dir, ["archive"]);
    expect(second.stdout).toBe("No completed or abandoned tasks to archive.\n");
    expectSpecsUnchanged(dir, before);
  });

  it("leaves a store that doctor finds clean", () => {
    const dir = fixture();
    ok(dir, ["archive"]);
    const doctor = runBaton(dir, ["doctor", "--json"]);
    expect(JSON.parse(doctor.stdout).findings).toEqual([]);
    expect(doctor.status).toBe(0);
  });

  it("without CHANGE_LOG.md none is created", () => {
    const { dir } = generatedRepo({ active: 9, archived: 0 });
    const result = okJson(dir, ["archive"]);
    expect(result.archived.map((a: { number: number }) => a.number)).toEqual([1]);
    expect(result.changeLogEntries).toBe(0);
    expect(existsSync(specs(dir, "CHANGE_LOG.md"))).toBe(false);
    expect(existsSync(specs(dir, "ROAD_MAP.md"))).toBe(false);
  });
});
