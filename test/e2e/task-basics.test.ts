import { existsSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  activeTasks,
  fails,
  ISO_SECONDS,
  nextNumbers,
  ok,
  okJson,
  read,
  repo,
  runAll,
  specs,
  templateRepo,
  todoNumbers,
} from "./helpers.js";

describe("task add in a fresh repository", () => {
  it("creates state.json and TODO.md from nothing, in the documented shapes", () => {
    const dir = repo();
    expect(existsSync(specs(dir))).toBe(false);

    const out = ok(dir, ["task", "add", "Fix", "the", "parser", "bug."]);
    expect(out.stdout.split("\n")[0]).toBe("Created task 1: Fix the parser bug");

    const [t] = activeTasks(dir);
    expect(t!.created).toMatch(ISO_SECONDS);
    expect(t!.last_updated).toBe(t!.created);
    const expectedState = {
      next_project_number: 2,
      active_projects: [
        {
          project_number: 1,
          project_name: "fix_the_parser_bug",
          status: "not_started",
          language: "general",
          created: t!.created,
          last_updated: t!.created,
        },
      ],
    };
    expect(read(dir, "state.json")).toBe(`${JSON.stringify(expectedState, null, 2)}\n`);

    const date = String(t!.created).slice(0, 10);
    expect(read(dir, "TODO.md")).toBe(
      [
        "---",
        "next_project_number: 2",
        "---",
        "",
        "# TODO",
        "",
        "## Tasks",
        "",
        "### 1. Fix the parser bug",
        "- **Effort**: TBD",
        "- **Status**: [NOT STARTED]",
        "- **Language**: general",
        `- **Created**: ${date}`,
        "",
        "---",
        "",
        "",
      ].join("\n"),
    );
    // Baton's control folder keeps itself out of git.
    expect(read(dir, ".baton", ".gitignore")).toBe("*\n");
    expect(existsSync(specs(dir, ".baton", "lock"))).toBe(false);
  });

  it("numbers tasks 1, 2, 3, newest first, and keeps next_project_number equal in both files", () => {
    const dir = repo();
    ok(dir, ["task", "add", "First task"]);
    expect(nextNumbers(dir)).toEqual({ state: 2, todo: 2 });
    ok(dir, ["task", "add", "Second task", "-l", "meta"]);
    ok(dir, ["task", "add", "Third task", "-l", "latex"]);
    expect(activeTasks(dir).map((t) => t.project_number)).toEqual([3, 2, 1]);
    expect(todoNumbers(dir)).toEqual([3, 2, 1]);
    expect(nextNumbers(dir)).toEqual({ state: 4, todo: 4 });
    expect(activeTasks(dir).map((t) => t.project_name)).toEqual(["third_task", "second_task", "first_task"]);
  });

  it("derives slugs from titles: lower case, punctuation to _, at most 50 characters", () => {
    const dir = repo();
    ok(dir, ["task", "add", "Add `--json` flag: output (v2.0)!", "-l", "general"]);
    ok(dir, ["task", "add", "Élan vital   café  résumé", "-l", "general"]);
    const long = "Refactor the completeness proof for the bilateral frame witness construction";
    ok(dir, ["task", "add", long, "-l", "general"]);
    const slugs = activeTasks(dir).map((t) => t.project_name);
    expect(slugs).toEqual([
      "refactor_the_completeness_proof_for_the_bilateral",
      "elan_vital_cafe_resume",
      "add_json_flag_output_v2_0",
    ]);
    expect(slugs[0]!.length).toBeLessThanOrEqual(50);
    // The title itself is kept as written (whitespace collapsed) in the TODO.md heading.
    expect(read(dir, "TODO.md")).toContain("### 2. Élan vital café résumé\n");
    expect(read(dir, "TODO.md")).toContain(`### 3. ${long}\n`);
  });

  it("--json prints the created task view; options land in both files", () => {
    const dir = repo();
    ok(dir, ["task", "add", "Base task", "-l", "general"]);
    const view = okJson(dir, [
      "task",
      "add",
      "Prove the lemma",
      "-d",
      "Show it holds.",
      "-p",
      "HIGH",
      "-e",
      "2 hours",
      "--depends",
      "1",
    ]);
    const t = activeTasks(dir)[0]!;
    expect(view).toEqual({
      number: 2,
      title: "Prove the lemma",
      slug: "prove_the_lemma",
      status: "not_started",
      language: "lean",
      priority: "high",
      effort: "2 hours",
      description: "Show it holds.",
      dependencies: [1],
      subtasks: [],
      artifacts: [],
      created: t.created,
      lastUpdated: t.created,
    });
    expect(t).toEqual({
      project_number: 2,
      project_name: "prove_the_lemma",
      status: "not_started",
      language: "lean",
      priority: "high",
      effort: "2 hours",
      description: "Show it holds.",
      dependencies: [1],
      created: t.created,
      last_updated: t.created,
    });
    const todo = read(dir, "TODO.md");
    const date = String(t.created).slice(0, 10);
    expect(todo).toContain(
      [
        "### 2. Prove the lemma",
        "- **Effort**: 2 hours",
        "- **Status**: [NOT STARTED]",
        "- **Language**: lean",
        "- **Priority**: high",
        "- **Dependencies**: 1",
        `- **Created**: ${date}`,
        "",
        "**Description**: Show it holds.",
        "",
        "---",
        "",
        "### 1. Base task",
      ].join("\n"),
    );
  });

  it("finds the repository root from a subfolder, or takes it from -C", () => {
    const dir = repo();
    mkdirSync(join(dir, "src", "deep"), { recursive: true });
    ok(join(dir, "src", "deep"), ["task", "add", "From a subfolder", "-l", "general"]);
    ok(tmpdir(), ["-C", dir, "task", "add", "From elsewhere", "-l", "general"]);
    expect(existsSync(join(dir, "src", "deep", "specs"))).toBe(false);
    expect(todoNumbers(dir)).toEqual([2, 1]);
  });

  it("rejects bad input without creating anything", () => {
    const dir = repo();
    expect(fails(dir, ["task", "add", "X", "-l", "cobol"], 2).stderr).toContain('unknown language "cobol"');
    expect(fails(dir, ["task", "add", "X", "-p", "urgent"], 2).stderr).toContain('unknown priority "urgent"');
    expect(fails(dir, ["task", "add", "X", "--depends", "7"], 2).stderr).toContain(
      "dependency 7 is not an active or archived task",
    );
    expect(existsSync(specs(dir, "state.json"))).toBe(false);
    expect(existsSync(specs(dir, "TODO.md"))).toBe(false);
  });
});

describe("task list and task show", () => {
  const fixture = templateRepo((dir) => {
    ok(dir, ["task", "add", "Alpha", "-l", "lean"]);
    ok(dir, ["task", "add", "Beta", "-l", "meta"]);
    ok(dir, ["task", "add", "Gamma", "-l", "latex"]);
    ok(dir, ["task", "add", "Delta", "-l", "general"]);
    ok(dir, ["task", "status", "2", "blocked", "--reason", "waiting on upstream"]);
    ok(dir, ["task", "status", "3", "blocked", "--reason", "x"]);
    ok(dir, ["task", "status", "3", "planned"]);
  });

  it("filters by --status and --language, repeatable and comma-separated", async () => {
    const dir = fixture();
    const table: Array<[string[], number[]]> = [
      [[], [4, 3, 2, 1]],
      [["--status", "blocked"], [2]],
      [
        ["--status", "blocked,planned"],
        [3, 2],
      ],
      [
        ["--status", "blocked", "--status", "not_started"],
        [4, 2, 1],
      ],
      [
        ["-s", "NOT STARTED"],
        [4, 1],
      ],
      [["--language", "lean"], [1]],
      [
        ["--language", "lean,latex"],
        [3, 1],
      ],
      [
        ["-l", "meta", "-l", "general"],
        [4, 2],
      ],
      [["--language", "meta,lean", "--status", "not_started"], [1]],
      [["--status", "completed"], []],
    ];
    const results = await runAll(
      dir,
      table.map(([args]) => ["task", "list", ...args, "--json"]),
    );
    const got = results.map((r, i) => [
      table[i]![0],
      JSON.parse(r.stdout).map((v: { number: number }) => v.number),
    ]);
    expect(got).toEqual(table);
    expect(ok(dir, ["task", "list", "--status", "completed"]).stdout).toBe("No tasks.\n");
  });

  it("prints a table", () => {
    const dir = fixture();
    expect(ok(dir, ["task", "list", "-l", "lean,meta"]).stdout).toBe(
      [
        "#  STATUS         LANGUAGE  TITLE",
        "2  [BLOCKED]      meta      Beta",
        "1  [NOT STARTED]  lean      Alpha",
        "",
      ].join("\n"),
    );
  });

  it("task show N prints the task, --json adds the raw entry", () => {
    const dir = fixture();
    const raw = activeTasks(dir).find((t) => t.project_number === 2)!;
    expect(raw.blocked_reason).toBe("waiting on upstream");
    const human = ok(dir, ["task", "show", "2"]).stdout;
    expect(human).toBe(
      [
        "Task 2: Beta",
        "  Status:       [BLOCKED]",
        "  Language:     meta",
        "  Slug:         beta",
        `  Created:      ${raw.created}`,
        `  Updated:      ${raw.last_updated}`,
        "",
      ].join("\n"),
    );
    const json = okJson(dir, ["task", "show", "2"]);
    expect(json).toEqual({
      number: 2,
      title: "Beta",
      slug: "beta",
      status: "blocked",
      language: "meta",
      dependencies: [],
      subtasks: [],
      artifacts: [],
      created: raw.created,
      lastUpdated: raw.last_updated,
      raw,
    });
  });

  it("task show of a missing or archived task explains where it is", () => {
    const dir = fixture();
    const missing = fails(dir, ["task", "show", "99"], 3);
    expect(missing.stderr).toContain("task 99 does not exist");
    ok(dir, ["task", "abandon", "4"]);
    const archived = fails(dir, ["task", "show", "4"], 3);
    expect(archived.stderr).toContain("task 4 is archived (status abandoned)");
    expect(archived.stderr).toContain("baton task recover 4");
  });
});
