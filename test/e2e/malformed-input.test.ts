import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  activeTasks,
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

  it("an entry that breaks the schema is named by index, task and the bad field's line", async () => {
    const dir = twoTasks();
    const state = JSON.parse(read(dir, "state.json"));
    state.active_projects[1].status = 7;
    writeFileSync(specs(dir, "state.json"), `${JSON.stringify(state, null, 2)}\n`);
    const line = lineOf(read(dir, "state.json"), '"status": 7');
    await expectRejectedEverywhere(dir, `${specs(dir, "state.json")}:${line}: active_projects[1] (task 1)`);
  });

  it("a task without project_number is named by its entry's line", async () => {
    const dir = twoTasks();
    const state = JSON.parse(read(dir, "state.json"));
    delete state.active_projects[1].project_number;
    writeFileSync(specs(dir, "state.json"), `${JSON.stringify(state, null, 2)}\n`);
    const text = read(dir, "state.json");
    // The second entry's opening brace: the line after the first entry's closing "},".
    const line =
      text
        .split("\n")
        .findIndex((l, i, all) => l === "    {" && all.slice(0, i).some((p) => p === "    },")) + 1;
    await expectRejectedEverywhere(
      dir,
      `${specs(dir, "state.json")}:${line}: active_projects[1]: project_number: expected number (missing)`,
    );
  });

  it("a task number stored as a string points at that field", async () => {
    const dir = twoTasks();
    write(dir, "state.json", read(dir, "state.json").replace('"project_number": 1', '"project_number": "1"'));
    const line = lineOf(read(dir, "state.json"), '"project_number": "1"');
    await expectRejectedEverywhere(
      dir,
      `${specs(dir, "state.json")}:${line}: active_projects[1] (task 1): project_number: expected number, got "1"`,
    );
  });

  it("a duplicate task number points at the duplicate's own line and names the first", async () => {
    const dir = twoTasks();
    const state = JSON.parse(read(dir, "state.json"));
    state.active_projects.push({ ...state.active_projects[0], project_name: "two_again" });
    writeFileSync(specs(dir, "state.json"), `${JSON.stringify(state, null, 2)}\n`);
    const lines = read(dir, "state.json").split("\n");
    const first = lines.indexOf("    {") + 1;
    const duplicate = lines.lastIndexOf("    {") + 1;
    await expectRejectedEverywhere(
      dir,
      `${specs(dir, "state.json")}:${duplicate}: active_projects[2] (task 2): task number 2 is also active_projects[0] (line ${first})`,
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
  it("an entry without a status line: the error names TODO.md:line and the task", async () => {
    const dir = twoTasks();
    const todo = read(dir, "TODO.md").split("\n");
    const statusLine = todo.indexOf("- **Status**: [NOT STARTED]");
    expect(todo[statusLine - 2]).toBe("### 2. Two");
    todo.splice(statusLine, 1);
    write(dir, "TODO.md", todo.join("\n"));
    await expectRejectedEverywhere(dir, `${specs(dir, "TODO.md")}:9: task 2 has no status line`);
  });

  it("a duplicate entry names both lines", async () => {
    const dir = twoTasks();
    write(dir, "TODO.md", `${read(dir, "TODO.md")}### 2. Two again\n- **Status**: [PLANNED]\n`);
    await expectRejectedEverywhere(
      dir,
      `${specs(dir, "TODO.md")}:25: task 2 appears twice (first at line 9)`,
    );
  });

  it("unclosed frontmatter is reported at line 1", async () => {
    const dir = twoTasks();
    // No "---" line anywhere after the opening one (entry separators would otherwise close it).
    write(
      dir,
      "TODO.md",
      "---\nnext_project_number: 3\n\n# TODO\n\n## Tasks\n\n### 2. Two\n- **Status**: [NOT STARTED]\n\n### 1. One\n- **Status**: [NOT STARTED]\n",
    );
    await expectRejectedEverywhere(
      dir,
      `${specs(dir, "TODO.md")}:1: frontmatter opened with "---" is never closed`,
    );
  });

  it("doctor reports an unreadable TODO.md as unreadable, not as missing", () => {
    const dir = twoTasks();
    write(dir, "TODO.md", read(dir, "TODO.md").replace("- **Status**: [NOT STARTED]\n", ""));
    const result = runBaton(dir, ["doctor", "--json"]);
    expect(result.status).toBe(1);
    const codes = (JSON.parse(result.stdout).findings as Array<{ code: string }>).map((f) => f.code);
    // The hand edit also shows as a change made outside Baton (it is not adopted yet).
    expect(codes).toEqual(["TODO_UNREADABLE", "STORE_CHANGED_OUTSIDE_BATON"]);
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
