import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  activeTasks,
  commitAll,
  expectSpecsUnchanged,
  ok,
  read,
  runAll,
  runBaton,
  snapshotSpecs,
  specs,
  templateRepo,
  write,
} from "./helpers.js";

/** A repository with tasks 1 and 2 made by the CLI, so specs/.baton exists and both files are Baton's own. */
const twoTasks = templateRepo((dir) => {
  ok(dir, ["task", "add", "One", "-l", "general"]);
  ok(dir, ["task", "add", "Two", "-l", "general"]);
});

/** Each goes through the store's single write path (doctor --fix through its repair path). */
const MUTATIONS = [
  ["task", "add", "Three"],
  ["task", "status", "1", "blocked", "-r", "x"],
  ["doctor", "--fix"],
];

/**
 * Every command, read or write, fails with exit 1; the read and write commands print `message`;
 * and no file under specs/ changes.
 */
async function expectRejectedEverywhere(
  dir: string,
  message: string,
  commands = [["task", "list"], ...MUTATIONS],
) {
  const before = snapshotSpecs(dir);
  const results = await runAll(dir, commands);
  for (const [i, args] of commands.entries()) {
    const result = results[i]!;
    expect(result.status, `baton ${args.join(" ")}: ${result.stdout}${result.stderr}`).toBe(1);
    if (args[0] === "task") expect(result.stderr, `baton ${args.join(" ")}`).toContain(message);
    expect(result.stderr).not.toContain("unexpected failure");
  }
  expectSpecsUnchanged(dir, before);
}

/**
 * An irregular entry in a repository as people keep it (the edit committed): every read works and marks
 * the task, doctor names the line and the fix, a write to that task is refused without writing anything,
 * and a write elsewhere succeeds and leaves the irregular entry's bytes as they were.
 */
async function expectReadAround(dir: string, task: number, message: string, untouched: string[]) {
  commitAll(dir, "a hand edit");
  const list = runBaton(dir, ["task", "list", "--json"]);
  expect(list.status, list.stderr).toBe(0);
  const view = (JSON.parse(list.stdout) as Array<{ number: number; irregular?: string[] }>).find(
    (v) => v.number === task,
  );
  expect(view?.irregular?.join("\n")).toContain(message);
  expect(runBaton(dir, ["task", "show", String(task)]).stdout).toContain(message);
  const doctor = runBaton(dir, ["doctor"]);
  expect(doctor.stdout).toContain("IRREGULAR_ENTRY");
  expect(doctor.stderr).not.toContain("unexpected failure");
  const before = snapshotSpecs(dir);
  const refused = runBaton(dir, ["task", "status", String(task), "blocked", "-r", "x"]);
  expect(refused.status).toBe(1);
  expect(refused.stderr).toContain(message);
  expect(refused.stderr).toContain("this command would change that entry");
  expectSpecsUnchanged(dir, before);
  ok(dir, ["task", "add", "Three"]);
  for (const [file, text] of untouched.map((t) => t.split("\u0000") as [string, string])) {
    expect(read(dir, file)).toContain(text);
  }
}

function lineOf(text: string, needle: string): number {
  const line = text.split("\n").findIndex((l) => l.includes(needle)) + 1;
  if (line === 0) throw new Error(`${needle} is not in the text`);
  return line;
}

describe("malformed state.json", () => {
  it("invalid JSON: the error names file:line:column and nothing is written", async () => {
    const dir = twoTasks();
    write(
      dir,
      "state.json",
      [
        "{",
        '  "next_project_number": 3,',
        '  "active_projects": [',
        '    {"project_number": 2, "project_name": "two", "status": "not_started",}',
        "  ]",
        "}",
        "",
      ].join("\n"),
    );
    await expectRejectedEverywhere(dir, `${specs(dir, "state.json")}:4:74: invalid JSON`);
    const result = runBaton(dir, ["task", "list"]);
    expect(result.stderr).toContain("Fix the JSON at line 4, column 74");
  });

  it("an entry that breaks the schema is read around, named by task and the bad field's line", async () => {
    const dir = twoTasks();
    const state = JSON.parse(read(dir, "state.json"));
    state.active_projects[1].status = 7;
    writeFileSync(specs(dir, "state.json"), `${JSON.stringify(state, null, 2)}\n`);
    const line = lineOf(read(dir, "state.json"), '"status": 7');
    await expectReadAround(dir, 1, `${specs(dir, "state.json")}:${line}: task 1: status: expected string`, [
      'state.json\u0000"status": 7',
    ]);
  });

  it("an artifacts object (an early ModelChecker form) is read as a list and repaired by doctor --fix", async () => {
    const dir = twoTasks();
    const state = JSON.parse(read(dir, "state.json"));
    state.active_projects[0].artifacts = { research: ["reports/01_first.md"], plan: "plans/01_plan.md" };
    writeFileSync(specs(dir, "state.json"), `${JSON.stringify(state, null, 2)}\n`);
    const artifacts = JSON.stringify(state.active_projects[0].artifacts, null, 2).replace(/\n/g, "\n      ");
    await expectReadAround(dir, 2, "task 2: artifacts: expected array, got object", [
      `state.json\u0000${artifacts}`,
    ]);
    const shown = runBaton(dir, ["task", "show", "2", "--json"]);
    expect(JSON.parse(shown.stdout).artifacts).toEqual([
      { path: "reports/01_first.md", type: "research" },
      { path: "plans/01_plan.md", type: "plan" },
    ]);
    runBaton(dir, ["doctor", "--fix"]);
    expect(
      JSON.parse(read(dir, "state.json")).active_projects.find(
        (t: { project_number: number }) => t.project_number === 2,
      ).artifacts,
    ).toEqual([
      { path: "reports/01_first.md", type: "research" },
      { path: "plans/01_plan.md", type: "plan" },
    ]);
    ok(dir, ["task", "status", "2", "blocked", "-r", "x"]);
  });

  it("a task without project_number is kept in place, reported by its entry's line, and hides nothing", async () => {
    const dir = twoTasks();
    const state = JSON.parse(read(dir, "state.json"));
    delete state.active_projects[1].project_number;
    writeFileSync(specs(dir, "state.json"), `${JSON.stringify(state, null, 2)}\n`);
    commitAll(dir, "a hand edit");
    const list = runBaton(dir, ["task", "list", "--json"]);
    expect(JSON.parse(list.stdout).map((v: { number: number }) => v.number)).toEqual([2]);
    const doctor = runBaton(dir, ["doctor"]);
    expect(doctor.stdout).toContain("active_projects[1] has no readable project_number");
    ok(dir, ["task", "add", "Three"]);
    const after = JSON.parse(read(dir, "state.json")).active_projects;
    expect(after.map((t: { project_name: string }) => t.project_name)).toEqual(["three", "two", "one"]);
    expect(after[2].project_number).toBeUndefined();
  });

  it("a task number stored as a string is read as the number and points at that field", async () => {
    const dir = twoTasks();
    write(dir, "state.json", read(dir, "state.json").replace('"project_number": 1', '"project_number": "1"'));
    const line = lineOf(read(dir, "state.json"), '"project_number": "1"');
    await expectReadAround(dir, 1, `${specs(dir, "state.json")}:${line}: task 1: project_number: a string`, [
      'state.json\u0000"project_number": "1"',
    ]);
  });

  it("a duplicate task number points at the duplicate's own line, names the first, and both are kept", async () => {
    const dir = twoTasks();
    const state = JSON.parse(read(dir, "state.json"));
    state.active_projects.push({ ...state.active_projects[0], project_name: "two_again" });
    writeFileSync(specs(dir, "state.json"), `${JSON.stringify(state, null, 2)}\n`);
    const lines = read(dir, "state.json").split("\n");
    const first = lines.indexOf("    {") + 1;
    const duplicate = lines.lastIndexOf("    {") + 1;
    await expectReadAround(
      dir,
      2,
      `${specs(dir, "state.json")}:${duplicate}: task 2 is in active_projects twice (also active_projects[0], line ${first})`,
      ['state.json\u0000"project_name": "two_again"'],
    );
  });

  it("a missing next_project_number is a schema error, not a crash", async () => {
    const dir = twoTasks();
    const state = JSON.parse(read(dir, "state.json"));
    delete state.next_project_number;
    writeFileSync(specs(dir, "state.json"), `${JSON.stringify(state, null, 2)}\n`);
    await expectRejectedEverywhere(dir, "next_project_number");
  });
});

describe("malformed TODO.md", () => {
  it("an entry without a status line is read around, named by TODO.md:line, and repaired by doctor --fix", async () => {
    const dir = twoTasks();
    const todo = read(dir, "TODO.md").split("\n");
    const statusLine = todo.indexOf("- **Status**: [NOT STARTED]");
    expect(todo[statusLine - 2]).toBe("### 2. Two");
    todo.splice(statusLine, 1);
    write(dir, "TODO.md", todo.join("\n"));
    await expectReadAround(dir, 2, `${specs(dir, "TODO.md")}:9: task 2 has no status line`, []);
    runBaton(dir, ["doctor", "--fix"]);
    expect(read(dir, "TODO.md")).toMatch(/### 2\. Two\n- \*\*Status\*\*: \[NOT STARTED\]\n- \*\*Effort/);
  });

  it("a duplicate entry names both lines; the second is kept as written", async () => {
    const dir = twoTasks();
    write(dir, "TODO.md", `${read(dir, "TODO.md")}### 2. Two again\n- **Status**: [PLANNED]\n`);
    await expectReadAround(
      dir,
      2,
      `${specs(dir, "TODO.md")}:25: task 2 has a second entry here (the first is at line 9)`,
      ["TODO.md\u0000### 2. Two again\n- **Status**: [PLANNED]\n"],
    );
  });

  it("field lines without the bullet (` **Status**: …`) are read, written back in their style, and reported", () => {
    const dir = twoTasks();
    write(
      dir,
      "TODO.md",
      read(dir, "TODO.md").replace(/^- (\*\*(?:Effort|Status|Language|Created)\*\*)/gm, " $1"),
    );
    commitAll(dir, "a hand edit");
    expect(
      JSON.parse(runBaton(dir, ["task", "list", "--json"]).stdout).map((v: { status: string }) => v.status),
    ).toEqual(["not_started", "not_started"]);
    ok(dir, ["task", "status", "2", "blocked", "-r", "x"]);
    expect(read(dir, "TODO.md")).toContain("### 2. Two\n **Effort**: TBD\n **Status**: [BLOCKED]\n");
    const doctor = runBaton(dir, ["doctor"]);
    expect(doctor.stdout).toContain(
      `specs/TODO.md:10: task 2: 5 field lines written without the "- " bullet`,
    );
    ok(dir, ["doctor", "--fix"]);
    expect(read(dir, "TODO.md")).toContain(
      "### 2. Two\n- **Effort**: TBD\n- **Status**: [BLOCKED]\n- **Language**: general\n- **Blocked on**: x\n",
    );
  });

  it("unclosed frontmatter is read as text and reported at line 1", () => {
    const dir = twoTasks();
    // No "---" line anywhere after the opening one (entry separators would otherwise close it).
    write(
      dir,
      "TODO.md",
      "---\nnext_project_number: 3\n\n# TODO\n\n## Tasks\n\n### 2. Two\n- **Status**: [NOT STARTED]\n\n### 1. One\n- **Status**: [NOT STARTED]\n",
    );
    commitAll(dir, "a hand edit");
    expect(runBaton(dir, ["task", "list"]).status).toBe(0);
    expect(runBaton(dir, ["doctor"]).stdout).toContain(
      `specs/TODO.md:1: the frontmatter opened with "---" is never closed`,
    );
  });

  it("doctor reports an entry it read around as irregular, not as missing", () => {
    const dir = twoTasks();
    write(dir, "TODO.md", read(dir, "TODO.md").replace("- **Status**: [NOT STARTED]\n", ""));
    const result = runBaton(dir, ["doctor", "--json"]);
    expect(result.status).toBe(1);
    const codes = (JSON.parse(result.stdout).findings as Array<{ code: string }>).map((f) => f.code);
    // The hand edit also shows as a change made outside Baton (it is not adopted yet).
    expect(codes).toEqual(["IRREGULAR_ENTRY", "STORE_CHANGED_OUTSIDE_BATON"]);
  });

  it("a missing TODO.md while state.json has tasks stops mutations (doctor --fix rebuilds it)", () => {
    const dir = twoTasks();
    const todoBefore = read(dir, "TODO.md");
    rmSync(specs(dir, "TODO.md"));
    const before = snapshotSpecs(dir);
    const result = runBaton(dir, ["task", "add", "Three"]);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("TODO.md is missing while state.json has tasks");
    expect(result.stderr).toContain("baton doctor --fix");
    expectSpecsUnchanged(dir, before);
    ok(dir, ["doctor", "--fix"]);
    // Rebuilt from state.json: same order, titles recovered from the slugs.
    expect(read(dir, "TODO.md").replace(/\d{4}-\d{2}-\d{2}/g, "DATE")).toBe(
      todoBefore.replace(/\d{4}-\d{2}-\d{2}/g, "DATE"),
    );
  });
});

describe("malformed configuration", () => {
  /** The config is read before anything else, so one read and one write command cover it. */
  const CONFIG_COMMANDS = [
    ["task", "list"],
    ["task", "add", "X"],
  ];

  function withConfig(name: string, content: string): string {
    const dir = twoTasks();
    writeFileSync(join(dir, name), content);
    return dir;
  }

  it("an unknown key in baton.config.json is named, with the allowed keys", async () => {
    const dir = withConfig("baton.config.json", '{\n  "lockTimeoutMs": 500,\n  "lockTimeout": 500\n}\n');
    await expectRejectedEverywhere(
      dir,
      `${join(dir, "baton.config.json")}: (top level): unknown key "lockTimeout"`,
      CONFIG_COMMANDS,
    );
    expect(runBaton(dir, ["task", "list"]).stderr).toContain("Allowed keys: $schema, specsDir,");
  });

  it("invalid JSON in baton.config.json names file:line:column", async () => {
    const dir = withConfig("baton.config.json", '{\n  "lockTimeoutMs": 500,\n}\n');
    await expectRejectedEverywhere(
      dir,
      `${join(dir, "baton.config.json")}:3:1: invalid JSON`,
      CONFIG_COMMANDS,
    );
  });

  it("a bad value or a nested unknown key is named with its path", async () => {
    let dir = withConfig("baton.config.json", '{ "newTaskPosition": "middle" }\n');
    await expectRejectedEverywhere(
      dir,
      'newTaskPosition: expected one of "top", "bottom", got "middle"',
      CONFIG_COMMANDS,
    );
    dir = withConfig("baton.config.json", '{ "slug": { "maxLen": 10 } }\n');
    await expectRejectedEverywhere(dir, 'slug: unknown key "maxLen"', CONFIG_COMMANDS);
  });

  it("a valid JSON config is honoured", () => {
    const dir = withConfig(
      "baton.config.json",
      '{ "newTaskPosition": "bottom", "slug": { "separator": "-" } }\n',
    );
    ok(dir, ["task", "add", "Appended at the end", "-l", "general"]);
    expect(activeTasks(dir).map((t) => t.project_name)).toEqual(["two", "one", "appended-at-the-end"]);
  });

  it("invalid YAML in baton.config.yaml names file:line:column", async () => {
    const dir = withConfig("baton.config.yaml", "lockTimeoutMs: 500\nslug: [unclosed\n");
    await expectRejectedEverywhere(dir, `${join(dir, "baton.config.yaml")}:`, CONFIG_COMMANDS);
    const result = runBaton(dir, ["task", "list"]);
    expect(result.stderr).toMatch(/baton\.config\.yaml:\d+:\d+: invalid YAML \(/);
  });

  it("a valid YAML config is honoured", () => {
    const dir = withConfig("baton.config.yml", "newTaskPosition: bottom\nslug:\n  separator: '-'\n");
    const result = runBaton(dir, ["task", "add", "Appended at the end", "-l", "general"]);
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    expect(activeTasks(dir).map((t) => t.project_name)).toEqual(["two", "one", "appended-at-the-end"]);
  });

  it("two config files at once are refused", async () => {
    const dir = withConfig("baton.config.json", "{}\n");
    writeFileSync(join(dir, "baton.config.yaml"), "{}\n");
    await expectRejectedEverywhere(dir, "baton.config.yaml exist", CONFIG_COMMANDS);
  });
});
