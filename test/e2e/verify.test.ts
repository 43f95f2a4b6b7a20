import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { BATON_BIN } from "../support/cli.js";
import { GOOD_RESEARCH, git, ok, okJson, repo, runBaton } from "./helpers.js";

/** `baton verify`: every done status in history has the Baton commit and evidence that moved it. */
function researchedRepo(): string {
  const dir = repo();
  ok(dir, ["task", "add", "Study the lexer", "-l", "general"]);
  ok(dir, ["task", "add", "Study the parser", "-l", "general"]);
  git(dir, ["add", "-A"]);
  git(dir, ["commit", "-qm", "tasks"]);
  const agent = join(dir, ".git", "agent.json");
  writeFileSync(agent, JSON.stringify({ steps: GOOD_RESEARCH }));
  ok(dir, ["research", "1", "--script", agent]);
  return dir;
}

/** A completion by hand: the status edited in both files and committed, with a trailer copied from a real one. */
function forgeCompletion(dir: string, task: number, status: string, session: string): void {
  const statePath = join(dir, "specs/state.json");
  const state = JSON.parse(readFileSync(statePath, "utf8"));
  for (const t of state.active_projects) if (t.project_number === task) t.status = status;
  writeFileSync(statePath, `${JSON.stringify(state, null, 2)}\n`);
  const todoPath = join(dir, "specs/TODO.md");
  const todo = readFileSync(todoPath, "utf8");
  const heading = todo.indexOf(`### ${task}.`);
  const line = todo.indexOf("- **Status**: [NOT STARTED]", heading);
  writeFileSync(
    todoPath,
    `${todo.slice(0, line)}- **Status**: [${status.toUpperCase()}]${todo.slice(line + 27)}`,
  );
  git(dir, ["commit", "-qam", `task ${task}: complete research`, "-m", `Session: ${session}`]);
}

/** Tasks committed, task 1 completed by hand, then Baton adopted: history from before adoption. */
function adoptedAfterOldWork(titles: string[]): string {
  const dir = repo();
  for (const title of titles) ok(dir, ["task", "add", title, "-l", "general"]);
  git(dir, ["add", "-A"]);
  git(dir, ["commit", "-qm", "tasks"]);
  forgeCompletion(dir, 1, "researched", "none");
  ok(dir, ["init", "--bin", `node ${BATON_BIN}`]);
  git(dir, ["add", "-A"]);
  git(dir, ["commit", "-qm", "adopt baton"]);
  return dir;
}

describe("baton verify", () => {
  it("passes on Baton's own history, with each completion's commit and session", () => {
    const dir = researchedRepo();
    const report = okJson(dir, ["verify", "--json"]);
    expect(report.phantoms).toEqual([]);
    expect(report.verified).toEqual([
      expect.objectContaining({
        task: 1,
        from: "not_started",
        to: "researched",
        subject: "task 1: complete research",
      }),
    ]);
    expect(report.verified[0].session).toMatch(/^sess_\d{10}_[0-9a-f]{6}$/);
  });

  it("reports a hand-forged completion as a phantom and exits 1, even with a real session's trailer", () => {
    const dir = researchedRepo();
    const session = okJson(dir, ["verify", "--json"]).verified[0].session as string;
    forgeCompletion(dir, 2, "researched", session);
    const result = runBaton(dir, ["verify"]);
    expect(result.status).toBe(1);
    expect(result.stdout).toContain("PHANTOM task 2 → researched");
    expect(result.stdout).toContain(`the commit adds no evidence of session ${session} for task 2`);
    // Filtered to task 1, the history is clean.
    expect(runBaton(dir, ["verify", "1"]).status).toBe(0);
    // A made-up session id is named as such.
    forgeCompletion(dir, 2, "planned", "sess_0000000000_abcdef");
    const again = okJsonAllowingFailure(dir);
    expect(again.phantoms.map((p: { to: string }) => p.to)).toEqual(["researched", "planned"]);
  });

  it("reports an artifact changed after its evidence was written", () => {
    const dir = researchedRepo();
    const report = "specs/1_study_the_lexer/reports/research-001.md";
    writeFileSync(join(dir, report), "# Research Report\n\nRewritten by hand after the fact.\n");
    git(dir, ["commit", "-q", "--amend", "--no-edit", "-a"]);
    const result = runBaton(dir, ["verify"]);
    expect(result.status).toBe(1);
    expect(result.stdout).toContain(`artifact ${report} differs from its evidence`);
  });

  it("lists completions from before Baton was adopted without failing on them", () => {
    const dir = adoptedAfterOldWork(["Old work"]);
    const report = okJson(dir, ["verify", "--json"]);
    expect(report.phantoms).toEqual([]);
    expect(report.beforeAdoption).toEqual([expect.objectContaining({ task: 1, to: "researched" })]);
    const text = ok(dir, ["verify"]).stdout;
    expect(text).toContain(
      "Before adoption (not checked): 1 completion(s) of 1 task(s); `baton verify --all` lists them",
    );
    expect(text).not.toContain("task 1 → researched");
    expect(ok(dir, ["verify", "--all"]).stdout).toMatch(/\n {2}task 1 → researched in [0-9a-f]{10}/);
  });

  it("takes Baton's own record as the adoption point: not the repository's own evidence folders, and a YAML config", () => {
    const dir = repo();
    for (const title of ["Old work", "New work"]) ok(dir, ["task", "add", title, "-l", "general"]);
    git(dir, ["add", "-A"]);
    git(dir, ["commit", "-qm", "tasks"]);
    // The repository's own evidence (ModelChecker keeps such files from before Baton): not Baton's.
    mkdirSync(join(dir, "specs/1_old_work/evidence"), { recursive: true });
    writeFileSync(join(dir, "specs/1_old_work/evidence/test-run.json"), '{ "passed": 12 }\n');
    git(dir, ["add", "-A"]);
    git(dir, ["commit", "-qm", "their evidence"]);
    forgeCompletion(dir, 1, "researched", "none");
    writeFileSync(join(dir, "baton.config.yaml"), "defaultLanguage: general\n");
    git(dir, ["add", "-A"]);
    git(dir, ["commit", "-qm", "adopt baton"]);
    expect(okJson(dir, ["verify", "--json"]).beforeAdoption).toEqual([expect.objectContaining({ task: 1 })]);
    forgeCompletion(dir, 2, "researched", "none");
    const report = okJsonAllowingFailure(dir);
    expect(report.phantoms.map((p: { task: number }) => p.task)).toEqual([2]);
    expect(report.beforeAdoption.map((p: { task: number }) => p.task)).toEqual([1]);
  });

  it("keeps what it read of each commit, and a new or rewritten history is read again", () => {
    const dir = adoptedAfterOldWork(["Old work", "More old work"]);
    const first = okJson(dir, ["verify"]);
    expect(existsSync(join(dir, ".baton", "cache", "state-history.json"))).toBe(true);
    // Read from the cache: the same report.
    expect(okJson(dir, ["verify"])).toEqual(first);
    // A completion committed since is read (only that commit is new), and judged: no Baton evidence.
    forgeCompletion(dir, 2, "researched", "none");
    const second = JSON.parse(runBaton(dir, ["verify", "--json"]).stdout);
    expect(second.phantoms).toEqual([expect.objectContaining({ task: 2, to: "researched" })]);
    // History rewritten (the forged commit dropped): the cache answers by commit, so nothing stale remains.
    git(dir, ["reset", "-q", "--hard", "HEAD~1"]);
    expect(okJson(dir, ["verify"])).toEqual(first);
  });

  it("baton init --ci github writes a workflow that runs baton verify over the whole history", () => {
    const dir = repo();
    ok(dir, ["init", "--ci", "github", "--bin", `node ${BATON_BIN}`]);
    const workflow = parse(readFileSync(join(dir, ".github/workflows/baton-verify.yml"), "utf8"));
    expect(Object.keys(workflow.on)).toContain("pull_request");
    const steps = workflow.jobs.verify.steps as Array<{ run?: string; with?: Record<string, unknown> }>;
    expect(steps.find((s) => s.with?.["fetch-depth"] === 0)).toBeDefined();
    expect(steps.map((s) => s.run)).toContain("baton verify");
    // Remembered: a plain re-run changes nothing, and uninstall removes it.
    expect(ok(dir, ["init"]).stdout).toContain("up to date");
    ok(dir, ["init", "--uninstall"]);
    expect(runBaton(dir, ["init", "--ci", "gitlab"]).status).toBe(2);
  });
});

function okJsonAllowingFailure(dir: string) {
  const result = runBaton(dir, ["verify", "--json"]);
  expect(result.status).toBe(1);
  return JSON.parse(result.stdout);
}

describe("an operation's commit carries only its own task's changes", () => {
  it("another task's uncommitted status (a failed run's, a hand's) stays in the work tree, out of the commit", () => {
    const dir = repo();
    ok(dir, ["task", "add", "Study the lexer", "-l", "general"]);
    ok(dir, ["task", "add", "Study the parser", "-l", "general"]);
    git(dir, ["add", "-A"]);
    git(dir, ["commit", "-qm", "tasks"]);
    // Task 2 moved outside this run and not committed: it must not ride under task 1's session trailer.
    ok(dir, ["task", "status", "2", "blocked", "-r", "waiting on the grammar"]);
    ok(dir, ["task", "add", "Study the printer", "-l", "general"]);
    const agent = join(dir, "agent.json");
    writeFileSync(agent, JSON.stringify({ steps: GOOD_RESEARCH }));
    ok(dir, ["research", "1", "--script", agent]);
    const committed = JSON.parse(git(dir, ["show", "HEAD:specs/state.json"]));
    const statuses = Object.fromEntries(
      committed.active_projects.map((t: { project_number: number; status: string }) => [
        t.project_number,
        t.status,
      ]),
    );
    expect(statuses).toEqual({ 1: "researched", 2: "not_started" });
    const todo = git(dir, ["show", "HEAD:specs/TODO.md"]);
    expect(todo).not.toContain("Study the printer");
    expect(todo).toMatch(
      /### 2\. Study the parser\n- \*\*Effort\*\*: TBD\n- \*\*Status\*\*: \[NOT STARTED\]/,
    );
    expect(todo).toMatch(/### 1\. Study the lexer\n[^#]*\[RESEARCHED\]/);
    // The other changes are still there, for their own commits; verify passes on this history.
    const now = JSON.parse(readFileSync(join(dir, "specs/state.json"), "utf8"));
    expect(now.active_projects.find((t: { project_number: number }) => t.project_number === 2).status).toBe(
      "blocked",
    );
    expect(git(dir, ["status", "--porcelain", "specs/state.json", "specs/TODO.md"])).toMatch(
      / M specs\/state\.json/,
    );
    expect(okJson(dir, ["verify"]).verified).toEqual([
      expect.objectContaining({ task: 1, to: "researched" }),
    ]);
  });
});
