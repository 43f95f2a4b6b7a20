import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import {
  GOOD_RESEARCH,
  git,
  ok,
  okJson,
  read,
  readJson,
  repo,
  runBaton,
  scriptFile,
  write,
} from "./helpers.js";

/**
 * A repository whose numbers wrap (ProofChecker: tasks 998 and 992 active, next number 82) and whose tasks
 * count their artifacts (`next_artifact_number`): set up as a person would have it, committed.
 */
function wrappedRepo(): string {
  const dir = repo();
  ok(dir, ["task", "add", "Old work", "-l", "general"]);
  ok(dir, ["task", "add", "Older work", "-l", "general"]);
  const state = JSON.parse(read(dir, "state.json"));
  state.next_project_number = 82;
  state.active_projects[0].project_number = 998;
  state.active_projects[1].project_number = 992;
  for (const entry of state.active_projects) entry.next_artifact_number = 1;
  write(dir, "state.json", `${JSON.stringify(state, null, 2)}\n`);
  write(
    dir,
    "TODO.md",
    read(dir, "TODO.md")
      .replace(/next_project_number: \d+/, "next_project_number: 82")
      .replace("### 1. Old work", "### 998. Old work")
      .replace("### 2. Older work", "### 992. Older work"),
  );
  ok(dir, ["adopt"]);
  git(dir, ["add", "-A"]);
  git(dir, ["commit", "-qm", "wrapped numbering"]);
  return dir;
}

const headFile = (dir: string, rel: string) => git(dir, ["show", `HEAD:specs/${rel}`]);

describe("Baton's commits carry exactly the bytes Baton wrote, in the repository's own numbering", () => {
  it("keeps a wrapped next number, advances next_artifact_number, and leaves HEAD's store equal to the work tree's", () => {
    const dir = wrappedRepo();
    expect(okJson(dir, ["task", "add", "New work", "-l", "general"]).number).toBe(82);
    const steps = [
      { write: "{task_folder}/reports/01_research.md", content: GOOD_RESEARCH[0]!.content },
      {
        writeMetadata: {
          status: "researched",
          summary: "found it",
          artifacts: [{ type: "research", path: "{task_folder}/reports/01_research.md" }],
          metadata: { session_id: "{session_id}", agent_type: "scripted" },
        },
      },
    ];
    const state = readJson(dir, "state.json");
    state.active_projects.find(
      (t: { project_number: number }) => t.project_number === 82,
    ).next_artifact_number = 1;
    write(dir, "state.json", `${JSON.stringify(state, null, 2)}\n`);
    ok(dir, ["adopt"]);
    const result = runBaton(dir, ["research", "82", "--script", scriptFile(dir, ".git/agent", steps)]);
    expect(result.status, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).not.toContain("left out");
    const committed = JSON.parse(headFile(dir, "state.json"));
    expect(committed.next_project_number).toBe(83);
    expect(
      committed.active_projects.find((t: { project_number: number }) => t.project_number === 82),
    ).toMatchObject({
      status: "researched",
      next_artifact_number: 2,
    });
    expect(headFile(dir, "state.json")).toBe(read(dir, "state.json"));
    expect(headFile(dir, "TODO.md")).toBe(read(dir, "TODO.md"));
    expect(git(dir, ["status", "--porcelain", "--", "specs"])).toBe("");
  });

  it("commits only this task's errors.json entries, and says nothing was left out after another task failed", () => {
    const dir = wrappedRepo();
    const failing = scriptFile(dir, ".git/failing", [
      { output: "TASK_ERROR: build_error - the proof does not check" },
      { exit: 1 },
    ]);
    runBaton(dir, ["research", "998", "--script", failing]);
    const errors = readJson(dir, "errors.json").errors as { context: { task: number } }[];
    expect(errors.some((e) => e.context.task === 998)).toBe(true);
    const result = runBaton(dir, [
      "research",
      "992",
      "--script",
      scriptFile(dir, ".git/agent", GOOD_RESEARCH),
    ]);
    expect(result.status, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).not.toContain("left out");
    const committed = JSON.parse(headFile(dir, "errors.json")) as { errors: { context: { task: number } }[] };
    expect(committed.errors.filter((e) => e.context.task === 998)).toEqual([]);
    // Task 998's error waits in the work tree for its own commit.
    expect(git(dir, ["status", "--porcelain", "--", "specs/errors.json"])).not.toBe("");
  });
});

describe("a task folder that exists before the first run", () => {
  it("is the task's when what it holds is committed (a spec the original system wrote), foreign when not", () => {
    const dir = repo();
    ok(dir, ["task", "add", "Spec first", "-l", "general"]);
    ok(dir, ["task", "add", "Notes first", "-l", "general"]);
    write(
      dir,
      "1_spec_first/reports/01_spec.md",
      "# Spec\n\nWhat the task is for, written when it was made.\n",
    );
    git(dir, ["add", "-A"]);
    git(dir, ["commit", "-qm", "tasks with a spec"]);
    const agent = scriptFile(dir, ".git/agent", GOOD_RESEARCH);
    const researched = runBaton(dir, ["research", "1", "--script", agent]);
    expect(researched.status, researched.stdout + researched.stderr).toBe(0);
    expect(git(dir, ["show", "--name-only", "--format=", "HEAD"])).not.toContain("01_spec.md");
    // Someone's uncommitted notes in a folder no run made: the run does not start, nothing is written.
    write(dir, "2_notes_first/notes.md", "my notes\n");
    const before = read(dir, "state.json");
    const refused = runBaton(dir, ["research", "2", "--script", agent]);
    expect(refused.status).not.toBe(0);
    expect(refused.stdout + refused.stderr).toContain(
      "holds files Baton did not write for task 2 (notes.md)",
    );
    expect(read(dir, "state.json")).toBe(before);
  });
});

describe("repository data is never a path out of the repository", () => {
  it("refuses a project_name that leads out of the store, and a plan artifact recorded outside, naming the field", () => {
    const dir = repo();
    ok(dir, ["task", "add", "Escape", "-l", "general"]);
    ok(dir, ["task", "add", "Outside plan", "-l", "general"]);
    const outside = join(dir, "..", `outside-${Date.now()}`);
    const state = readJson(dir, "state.json");
    state.active_projects[1].project_name = "../../outside";
    state.active_projects[0].status = "planned";
    state.active_projects[0].artifacts = [{ type: "plan", path: "../outside-plan.md" }];
    write(dir, "state.json", `${JSON.stringify(state, null, 2)}\n`);
    ok(dir, ["adopt"]);
    git(dir, ["add", "-A"]);
    git(dir, ["commit", "-qm", "hostile names"]);
    const research = runBaton(dir, [
      "research",
      "1",
      "--script",
      scriptFile(dir, ".git/agent", GOOD_RESEARCH),
    ]);
    expect(research.status).not.toBe(0);
    expect(research.stderr).toContain('task 1: project_name "../../outside" is not a folder name');
    expect(existsSync(outside)).toBe(false);
    expect(existsSync(join(dir, "..", "..", "outside"))).toBe(false);
    const outsidePlan = join(dir, "..", "outside-plan.md");
    writeFileSync(outsidePlan, "# Plan\n\n### Phase 1: A [NOT STARTED]\n");
    onTestFinished(() => rmSync(outsidePlan, { force: true }));
    const agent = scriptFile(dir, ".git/agent2", GOOD_RESEARCH);
    const implement = runBaton(dir, ["implement", "2", "--script", agent]);
    expect(implement.status).not.toBe(0);
    expect(implement.stderr).toContain('the path "../outside-plan.md" leads out of the repository');
    expect(readFileSync(outsidePlan, "utf8")).toContain("[NOT STARTED]");
  });
});
