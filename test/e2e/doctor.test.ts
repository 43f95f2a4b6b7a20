import { existsSync, readdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  activeTasks,
  archivedEntries,
  commitAll,
  expectSpecsUnchanged,
  generatedRepo,
  nextNumbers,
  ok,
  okJson,
  read,
  repo,
  runBaton,
  snapshotSpecs,
  specs,
  task,
  todoEntry,
  todoNumbers,
  todoStatusOf,
  write,
} from "./helpers.js";

interface Finding {
  code: string;
  severity: "error" | "warning";
  message: string;
  fix: string;
  fixable: boolean;
  task?: number;
  path?: string;
}

function setNext(dir: string, next: number): void {
  const state = JSON.parse(read(dir, "state.json"));
  state.next_project_number = next;
  write(dir, "state.json", `${JSON.stringify(state, null, 2)}\n`);
  write(
    dir,
    "TODO.md",
    read(dir, "TODO.md").replace(/^next_project_number: \d+$/m, `next_project_number: ${next}`),
  );
}

/**
 * generateRepo({active: 12, archived: 3, naming: "mixed", folders: true, orphan: true}): archived 1-3,
 * active 15..4, orphan folder 66_forgotten_experiment. With next_project_number raised to 70 in both
 * files (numbers may skip) the orphan lies below it. Then the drift a hand edit or a dead agent leaves.
 */
function drifted(next = 70) {
  const { dir } = generatedRepo({ active: 12, archived: 3, naming: "mixed", folders: true, orphan: true });
  if (next !== 16) {
    setNext(dir, next);
    commitAll(dir, "numbers skip");
  }
  // 1. A TODO marker edited by hand.
  write(
    dir,
    "TODO.md",
    read(dir, "TODO.md").replace(
      /(### 13\. [^\n]*\n(?:[^\n]*\n)*?- \*\*Status\*\*: )\[RESEARCHED\]/,
      "$1[PLANNED]",
    ),
  );
  // 2. A TODO entry deleted.
  write(dir, "TODO.md", read(dir, "TODO.md").replace(/### 6\. [\s\S]*?\n---\n\n/, ""));
  // 3. The frontmatter's next number lowered.
  write(
    dir,
    "TODO.md",
    read(dir, "TODO.md").replace(/^next_project_number: \d+$/m, "next_project_number: 12"),
  );
  // 4. Control files left in the folder of a task no operation is running on (11 is planned).
  const folder11 = readdirSync(specs(dir)).find((n) => n.startsWith("11_"))!;
  write(
    dir,
    `${folder11}/.baton-postflight-pending`,
    '{"session_id": "sess_1773703759_abcdef", "operation": "plan"}\n',
  );
  write(dir, `${folder11}/.return-meta.json`, '{"status": "planned"}\n');
  // 5. The orphan folder comes from the generator.
  expect(existsSync(specs(dir, "66_forgotten_experiment"))).toBe(true);
  expect(todoNumbers(dir)).not.toContain(6);
  return { dir, folder11 };
}

interface DoctorJson {
  findings: Finding[];
  fixed: Finding[];
  remaining: Finding[];
  healthy: boolean;
}

function findings(
  dir: string,
  args: string[] = [],
): { status: number; findings: Finding[]; json: DoctorJson } {
  const result = runBaton(dir, ["doctor", ...args, "--json"]);
  const json = JSON.parse(result.stdout);
  return { status: result.status, findings: json.findings, json };
}

describe("doctor", () => {
  it("finds a stale .git/index.lock, which --fix removes; a fresh one is left to its git", () => {
    const { dir } = generatedRepo({ active: 2, archived: 0, folders: false });
    const lock = join(dir, ".git", "index.lock");
    writeFileSync(lock, "");
    expect(findings(dir).findings.map((f) => f.code)).not.toContain("STALE_GIT_LOCK");
    const old = new Date(Date.now() - 120_000);
    utimesSync(lock, old, old);
    expect(findings(dir).findings).toContainEqual(
      expect.objectContaining({ code: "STALE_GIT_LOCK", path: lock, fixable: true }),
    );
    runBaton(dir, ["doctor", "--fix"]);
    expect(existsSync(lock)).toBe(false);
  });

  it("is clean (exit 0) on a consistent repository", () => {
    const { dir } = generatedRepo({ active: 12, archived: 3, naming: "mixed", folders: true });
    expect(ok(dir, ["doctor"]).stdout.split("\n")[0]).toBe(
      "All invariants hold: state.json and TODO.md agree.",
    );
    expect(okJson(dir, ["doctor"])).toMatchObject({ findings: [], fixed: [], remaining: [], healthy: true });
  });

  it("reports each kind of drift with its code and exits 1, writing nothing", () => {
    const { dir, folder11 } = drifted();
    const before = snapshotSpecs(dir);
    const { status, findings: found } = findings(dir);
    expect(status).toBe(1);
    const summary = found.map((f) => [f.code, f.task ?? null, f.severity, f.fixable]);
    expect(summary).toEqual(
      expect.arrayContaining([
        ["NEXT_NUMBER_MISMATCH", null, "error", true],
        ["TODO_ENTRY_MISSING", 6, "error", true],
        ["STATUS_MISMATCH", 13, "error", true],
        ["ORPHAN_FOLDER", 66, "warning", true],
        ["STALE_MARKER", 11, "warning", true],
        ["LEFTOVER_RETURN_META", 11, "warning", true],
      ]),
    );
    expect(found).toHaveLength(6);
    const byCode = Object.fromEntries(found.map((f) => [f.code, f]));
    expect(byCode.NEXT_NUMBER_MISMATCH!.message).toBe(
      "next_project_number is 70 in state.json but 12 in TODO.md",
    );
    expect(byCode.STATUS_MISMATCH!.message).toBe(
      "task 13 is researched in state.json but [PLANNED] in TODO.md",
    );
    expect(byCode.STALE_MARKER!.path).toBe(specs(dir, folder11, ".baton-postflight-pending"));
    expect(byCode.LEFTOVER_RETURN_META!.path).toBe(specs(dir, folder11, ".return-meta.json"));
    expect(byCode.ORPHAN_FOLDER!.message).toBe(
      "specs/66_forgotten_experiment has no task in state.json or the archive",
    );

    const human = runBaton(dir, ["doctor"]);
    expect(human.status).toBe(1);
    expect(human.stdout).toContain("Found 6 problem(s):\n");
    expect(human.stdout).toContain(
      "error   STATUS_MISMATCH: task 13 is researched in state.json but [PLANNED] in TODO.md",
    );
    expect(human.stdout).toContain("Run `baton doctor --fix` to repair the 6 fixable one(s).");
    expectSpecsUnchanged(dir, before);
  });

  it("--fix repairs every finding and a second run is clean", () => {
    const { dir, folder11 } = drifted();
    const stateBefore = activeTasks(dir);
    const fix = findings(dir, ["--fix"]);
    expect(fix.json.fixed.map((f: Finding) => f.code).sort()).toEqual([
      "LEFTOVER_RETURN_META",
      "NEXT_NUMBER_MISMATCH",
      "ORPHAN_FOLDER",
      "STALE_MARKER",
      "STATUS_MISMATCH",
      "TODO_ENTRY_MISSING",
    ]);
    expect(fix.json.remaining).toEqual([]);
    expect(fix.json.healthy).toBe(true);
    expect(fix.status).toBe(0);

    // state.json is the machine truth: its tasks are unchanged; TODO.md follows it.
    expect(activeTasks(dir)).toEqual(stateBefore);
    expect(todoStatusOf(dir, 13)).toBe("[RESEARCHED]");
    expect(todoEntry(dir, 6)).toContain("- **Status**: [NOT STARTED]");
    expect(todoNumbers(dir).sort((a, b) => b - a)).toEqual([15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4]);
    expect(nextNumbers(dir)).toEqual({ state: 70, todo: 70 });
    expect(existsSync(specs(dir, folder11, ".baton-postflight-pending"))).toBe(false);
    expect(existsSync(specs(dir, folder11, ".return-meta.json"))).toBe(false);
    expect(existsSync(specs(dir, folder11, "plans"))).toBe(true);
    expect(existsSync(specs(dir, "archive", "66_forgotten_experiment", "reports", "research-001.md"))).toBe(
      true,
    );
    expect(archivedEntries(dir)[0]).toMatchObject({
      project_number: 66,
      status: "orphan_archived",
      source: "orphan_recovery",
    });

    const again = runBaton(dir, ["doctor"]);
    expect(again.stdout.split("\n")[0]).toBe("All invariants hold: state.json and TODO.md agree.");
    expect(again.status).toBe(0);
  });

  it("--fix with an orphan folder numbered above next_project_number still ends clean", () => {
    // The generator's orphan is next + 50, as in real repositories where a folder outlived its entry.
    const { dir } = drifted(16);
    runBaton(dir, ["doctor", "--fix"]);
    const again = findings(dir);
    expect(again.findings).toEqual([]);
    expect(again.status).toBe(0);
    // The orphan's number may never be handed out again, even when the numbering reaches it.
    expect(okJson(dir, ["task", "add", "After the orphan", "-l", "general"]).number).toBe(16);
    const state = JSON.parse(read(dir, "state.json"));
    state.next_project_number = 66;
    write(dir, "state.json", `${JSON.stringify(state, null, 2)}\n`);
    ok(dir, ["adopt"]);
    expect(okJson(dir, ["task", "add", "At the orphan", "-l", "general"]).number).toBe(67);
  });

  it("adopts a TODO-only entry into state.json and drops one that belongs to an archived task", () => {
    const { dir } = generatedRepo({ active: 12, archived: 3, folders: true });
    const extra =
      "### 20. Written by hand\n- **Status**: [PLANNED]\n- **Language**: meta\n- **Effort**: 1 hour\n\n**Description**: Adopt me.\n\n---\n\n";
    const archived = "### 2. Already archived\n- **Status**: [COMPLETED]\n\n---\n\n";
    write(dir, "TODO.md", read(dir, "TODO.md").replace("## Tasks\n\n", `## Tasks\n\n${extra}${archived}`));
    const codes = findings(dir).findings.map((f) => [f.code, f.task]);
    expect(codes).toEqual([
      ["TODO_ENTRY_EXTRA", 20],
      ["TODO_ENTRY_EXTRA", 2],
    ]);
    ok(dir, ["doctor", "--fix"]);
    expect(task(dir, 20)).toMatchObject({
      project_name: "written_by_hand",
      status: "planned",
      language: "meta",
      effort: "1 hour",
      description: "Adopt me.",
    });
    expect(todoNumbers(dir)).not.toContain(2);
    const next = nextNumbers(dir);
    expect(next.state).toBe(next.todo);
    const added = okJson(dir, ["task", "add", "After adoption", "-l", "general"]).number;
    expect([2, 20]).not.toContain(added);
    expect(ok(dir, ["doctor"]).status).toBe(0);
  });

  it("warnings alone (a missing artifact) are reported but exit 0", () => {
    const { dir } = generatedRepo({ active: 12, archived: 3, folders: true });
    const plan = task(dir, 11).artifacts as Array<{ path: string; type: string }>;
    const planPath = plan.find((a) => a.type === "plan")!.path;
    rmSync(specs(dir, planPath.replace(/^specs\//, "")));
    const result = findings(dir);
    expect(result.findings).toEqual([
      expect.objectContaining({ code: "MISSING_ARTIFACT", severity: "warning", task: 11, fixable: false }),
    ]);
    expect(result.json.healthy).toBe(true);
    expect(result.status).toBe(0);
  });
});

describe("doctor's text on a repository with many findings of one kind", () => {
  it("shows each kind once, with its count and the first three, so no other finding is buried", () => {
    const dir = repo();
    for (let n = 1; n <= 6; n++) ok(dir, ["task", "add", `Task ${n}`, "-l", "general"]);
    for (let n = 1; n <= 6; n++) write(dir, `${n}_task_${n}/.return-meta.json`, '{"status": "researched"}\n');
    const text = runBaton(dir, ["doctor"]).stdout;
    expect(text).toContain("Found 6 problem(s):");
    expect(text).toContain("LEFTOVER_RETURN_META: 6 findings, the first 3:");
    expect(text.match(/is a leftover agent return-metadata file/g)).toHaveLength(3);
    expect(text).toContain("… and 3 more (`baton doctor --json` lists every one)");
    expect(okJson(dir, ["doctor", "--json"]).findings).toHaveLength(6);
  });
});
