import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { isBatonError } from "../shared/index.js";
import { tempStore } from "../testing/store-fixture.js";
import { runDoctorChecks } from "./doctor-checks.js";
import { fixFindings } from "./doctor-fix.js";
import { mutateStore, readStore, type StoreContext } from "./store.js";
import { addTask } from "./task-ops.js";
import { taskViews } from "./views.js";

/**
 * The irregularity classes `npm run compat:history` found in real stores (ProofChecker, ModelChecker),
 * regenerated here from a generated store, never copied: each must leave every task listed, doctor
 * without a crash, and `task add` changing no other task's entry. A new class found in someone's history
 * becomes one more row.
 */
type Edit = (state: { active_projects: Array<Record<string, unknown>> }, todo: string) => string;

const CLASSES: Array<[string, Edit]> = [
  [
    "an artifacts object keyed by type",
    (state) => {
      state.active_projects[0]!["artifacts"] = { research: ["reports/01_research-report.md"] };
      return "";
    },
  ],
  [
    "an entry without project_name",
    (state) => {
      delete state.active_projects[1]!["project_name"];
      return "";
    },
  ],
  [
    "a task number twice in active_projects",
    (state) => {
      state.active_projects.push({ ...state.active_projects[2]!, project_name: "again" });
      return "";
    },
  ],
  ["field lines with a leading space and no bullet", (_, todo) => todo.replace(/^- (\*\*\w+\*\*:)/gm, " $1")],
  [
    "an entry without a status line",
    (_, todo) => todo.replace(/(### \d+\. [^\n]*\n(?:[^\n]*\n)*?)- \*\*Status\*\*: [^\n]*\n/, "$1"),
  ],
  ["an entry heading without a title", (_, todo) => todo.replace(/^(### \d+\.) [^\n]*$/m, "$1")],
  [
    "a second TODO entry for one number",
    (_, todo) => {
      const entry = /### (\d+)\. [^\n]*\n- \*\*Effort[^\n]*\n- \*\*Status[^\n]*\n/.exec(todo)![0];
      return todo.replace(/\n## Tasks\n/, `\n## Tasks\n\n${entry}\n`);
    },
  ],
  [
    "curated ### sections inside the tasks section",
    (_, todo) =>
      todo.replace(
        /\n## Tasks\n/,
        "\n## Tasks\n\n### Next up\n\n1. Do the first one\n\n### Blocked\n\n- none\n",
      ),
  ],
  [
    "a dependency list written as text",
    (state) => {
      state.active_projects[0]!["dependencies"] = "Task 3, Task 4";
      return "";
    },
  ],
];

let cleanup = () => {};
afterEach(() => cleanup());

async function storeWith(edit: Edit) {
  const t = await tempStore({ active: 6 });
  cleanup = t.cleanup;
  const statePath = join(t.repo.specsDir, "state.json");
  const todoPath = join(t.repo.specsDir, "TODO.md");
  const state = JSON.parse(readFileSync(statePath, "utf8"));
  const todo = edit(state, readFileSync(todoPath, "utf8"));
  writeFileSync(statePath, `${JSON.stringify(state, null, 2)}\n`);
  if (todo) writeFileSync(todoPath, todo);
  return {
    ...t,
    statePath,
    todoPath,
    numbers: state.active_projects.map((e: { project_number?: number }) => e.project_number),
  };
}

/** Each entry's text by task number: JSON entries as written, TODO entries from their heading on. */
function entryTexts(statePath: string, todoPath: string, skip: number): string[] {
  const state = JSON.parse(readFileSync(statePath, "utf8")).active_projects as Array<{
    project_number?: number;
  }>;
  const todo = readFileSync(todoPath, "utf8").split(/^(?=### )/m);
  return [
    ...state.filter((e) => e.project_number !== skip).map((e) => JSON.stringify(e)),
    ...todo
      .filter((part) => !part.startsWith(`### ${skip}.`))
      .map((part) => part.replace(/^next_project_number: \d+$/m, "")),
  ];
}

describe("irregular stores as real repositories keep them", () => {
  it.each(CLASSES)("%s: every task listed, doctor answers, add changes no other entry", async (_, edit) => {
    const t = await storeWith(edit);
    const listed = taskViews(readStore(t.ctx)).map((v) => v.number);
    for (const n of t.numbers.filter((n: unknown) => typeof n === "number")) expect(listed).toContain(n);
    expect(() => runDoctorChecks(t.ctx)).not.toThrow();
    const before = entryTexts(t.statePath, t.todoPath, -1);
    const task = await mutateStore(t.ctx, { command: "test" }, (tx) => addTask(tx, { title: "New one" }));
    expect(entryTexts(t.statePath, t.todoPath, task.project_number).sort()).toEqual(before.sort());
  });
});

/** A seeded generator of numbers below `n`: the same odd inputs on every run, so a failure reproduces. */
function seeded(seed: number): (n: number) => number {
  let state = seed;
  return (n) => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state % n;
  };
}

/**
 * doctor, the readers and doctor --fix on the store as it now is: a file-level problem is a Baton error
 * naming the file; anything else is a crash. `input` describes the store for the failure message.
 */
async function expectOnlyBatonErrors(ctx: StoreContext, input: () => string): Promise<void> {
  const steps = [
    async () => runDoctorChecks(ctx),
    async () => taskViews(readStore(ctx)),
    async () => fixFindings(ctx, runDoctorChecks(ctx)),
  ];
  for (const step of steps) {
    try {
      await step();
    } catch (error) {
      expect(isBatonError(error), `${input()}: ${String(error)}`).toBe(true);
    }
  }
}

/** Values a hand or another tool puts where Baton expects something else. */
const ODD_VALUES: unknown[] = [
  null,
  7,
  -1,
  1.5,
  "",
  "text",
  "12",
  true,
  [],
  [1, "x", null],
  {},
  { a: [1] },
  { path: 3 },
];
const FIELDS = [
  "project_number",
  "project_name",
  "status",
  "language",
  "description",
  "priority",
  "effort",
  "created",
  "last_updated",
  "session_id",
  "dependencies",
  "parent_task",
  "subtasks",
  "artifacts",
];

describe("doctor on any entry shape", () => {
  it("never ends in an unexpected failure: 300 seeded stores with odd field values", async () => {
    const t = await tempStore({ active: 4 });
    cleanup = t.cleanup;
    const statePath = join(t.repo.specsDir, "state.json");
    const original = readFileSync(statePath, "utf8");
    const next = seeded(42);
    for (let round = 0; round < 300; round++) {
      const state = JSON.parse(original);
      for (let k = 0; k < 1 + next(3); k++) {
        const entry = state.active_projects[next(state.active_projects.length)];
        entry[FIELDS[next(FIELDS.length)]!] = ODD_VALUES[next(ODD_VALUES.length)];
      }
      if (next(10) === 0) state.active_projects.push(ODD_VALUES[next(ODD_VALUES.length)]);
      writeFileSync(statePath, JSON.stringify(state));
      await expectOnlyBatonErrors(t.ctx, () => JSON.stringify(state));
    }
  });
});

/** Lines a hand, a merge or another tool leaves in TODO.md. */
const ODD_LINES = [
  "### 7.",
  "### 7. Duplicate title",
  "### x. Not a number",
  " **Status**: [RESEARCHED]",
  "- **Status**: RESEARCHED",
  "- **Status:** [PLANNED]",
  "<<<<<<< HEAD",
  "=======",
  ">>>>>>> branch",
  "```",
  "---",
  "## Tasks",
  "## Done",
  "next_project_number: abc",
  "\uFEFF",
  "\r",
  "",
];

describe("doctor and the readers on any TODO.md", () => {
  it("never end in an unexpected failure: 300 seeded TODO.md files with odd lines", async () => {
    const t = await tempStore({ active: 6 });
    cleanup = t.cleanup;
    const todoPath = join(t.repo.specsDir, "TODO.md");
    const lines = readFileSync(todoPath, "utf8").split("\n");
    const next = seeded(7);
    for (let round = 0; round < 300; round++) {
      const edited = [...lines];
      for (let k = 0; k < 1 + next(4); k++) {
        const at = next(edited.length);
        if (next(3) === 0) edited.splice(at, 1);
        else edited.splice(at, 0, ODD_LINES[next(ODD_LINES.length)]!);
      }
      writeFileSync(todoPath, edited.join("\n"));
      await expectOnlyBatonErrors(t.ctx, () => edited.join("\\n"));
    }
  });
});
