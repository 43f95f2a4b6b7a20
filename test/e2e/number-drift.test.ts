import { describe, expect, it } from "vitest";
import {
  activeTasks,
  nextNumbers,
  ok,
  okJson,
  read,
  runBaton,
  templateRepo,
  todoNumbers,
  write,
} from "./helpers.js";

/**
 * Real repositories disagree about the next number (format reference 2.6: 104 of 676 sampled commits had
 * state.json and the TODO.md frontmatter apart; 98 versions had next <= an existing number). A new task
 * must never take a number that is already in use anywhere, and must leave a readable store.
 */
const twoTasks = templateRepo((dir) => {
  ok(dir, ["task", "add", "Alpha", "-l", "general"]);
  ok(dir, ["task", "add", "Beta", "-l", "general"]);
});

function setStateNext(dir: string, next: number): void {
  const state = JSON.parse(read(dir, "state.json"));
  state.next_project_number = next;
  write(dir, "state.json", `${JSON.stringify(state, null, 2)}\n`);
}

describe("next_project_number drift", () => {
  it("state.json below its own highest task: the new task takes the number after it", () => {
    const dir = twoTasks();
    setStateNext(dir, 1);
    write(dir, "TODO.md", read(dir, "TODO.md").replace("next_project_number: 3", "next_project_number: 1"));
    // Drift is a person's edit (or a merge) here: accepted on purpose before Baton writes again.
    ok(dir, ["adopt"]);
    expect(okJson(dir, ["task", "add", "Gamma", "-l", "general"]).number).toBe(3);
    expect(nextNumbers(dir)).toEqual({ state: 4, todo: 4 });
  });

  it("archived numbers at or above next are skipped", () => {
    const dir = twoTasks();
    write(
      dir,
      "archive/state.json",
      `${JSON.stringify(
        {
          archived_projects: [],
          completed_projects: [
            { project_number: 3, project_name: "old", status: "completed" },
            { project_number: 4, project_name: "older", status: "abandoned" },
          ],
        },
        null,
        2,
      )}\n`,
    );
    expect(okJson(dir, ["task", "add", "Gamma", "-l", "general"]).number).toBe(5);
    expect(nextNumbers(dir)).toEqual({ state: 6, todo: 6 });
  });

  it("the TODO.md frontmatter is higher than state.json: the higher number wins", () => {
    const dir = twoTasks();
    write(dir, "TODO.md", read(dir, "TODO.md").replace("next_project_number: 3", "next_project_number: 7"));
    ok(dir, ["adopt"]);
    const view = okJson(dir, ["task", "add", "Gamma", "-l", "general"]);
    expect(view.number).toBe(7);
    expect(nextNumbers(dir)).toEqual({ state: 8, todo: 8 });
  });

  it("a TODO-only entry holding the next number is never duplicated; the store stays readable", () => {
    const dir = twoTasks();
    write(
      dir,
      "TODO.md",
      `${read(dir, "TODO.md")}### 3. Written by hand in TODO.md only\n- **Status**: [NOT STARTED]\n`,
    );
    const add = runBaton(dir, ["task", "add", "Gamma", "-l", "general", "--json"]);
    const numbers = todoNumbers(dir);
    expect(
      numbers.filter((n) => n === 3),
      `TODO.md headings: ${numbers.join(", ")}`,
    ).toHaveLength(1);
    const list = runBaton(dir, ["task", "list"]);
    expect(list.stderr).toBe("");
    expect(list.status).toBe(0);
    if (add.status === 0) {
      expect(JSON.parse(add.stdout).number).not.toBe(3);
      expect(activeTasks(dir).map((t) => t.project_number)).not.toContain(3);
    }
  });
});

describe("numbering restarted after a vault", () => {
  it("takes the first number that no live or archived task holds, and doctor agrees", () => {
    const dir = twoTasks();
    const state = JSON.parse(read(dir, "state.json"));
    state.active_projects.push(
      { project_number: 81, project_name: "recent", status: "not_started", language: "general" },
      { project_number: 998, project_name: "before_the_vault", status: "planned", language: "general" },
    );
    state.next_project_number = 81;
    write(dir, "state.json", `${JSON.stringify(state, null, 2)}\n`);
    const todo = read(dir, "TODO.md").replace("next_project_number: 3", "next_project_number: 81");
    write(
      dir,
      "TODO.md",
      `${todo}### 81. Recent\n- **Status**: [NOT STARTED]\n\n### 998. Before the vault\n- **Status**: [PLANNED]\n`,
    );
    write(
      dir,
      "archive/state.json",
      `${JSON.stringify({ completed_projects: [{ project_number: 82, project_name: "vaulted", status: "completed" }] })}\n`,
    );
    const doctor = JSON.parse(runBaton(dir, ["doctor", "--json"]).stdout);
    const numbering = doctor.findings.filter(
      (f: { code: string }) => f.code !== "STORE_CHANGED_OUTSIDE_BATON",
    );
    expect(numbering).toEqual([
      expect.objectContaining({
        code: "NEXT_NUMBER_TAKEN",
        message: "next_project_number 81 is already held by active task 81",
      }),
    ]);
    ok(dir, ["adopt"]);
    expect(okJson(dir, ["task", "add", "After the restart", "-l", "general"]).number).toBe(83);
    expect(nextNumbers(dir)).toEqual({ state: 84, todo: 84 });
    expect(JSON.parse(runBaton(dir, ["doctor", "--json"]).stdout).findings).toEqual([]);
  });
});
