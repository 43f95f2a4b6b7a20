import { existsSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { layeredPlanPhases, phaseScriptSteps } from "../../src/testing/generate-plan.js";
import {
  agentStarted,
  fails,
  git,
  ok,
  plannedTaskRepo,
  repo,
  runBaton,
  runBatonAsync,
  snapshotSpecs,
  specs,
  startedResearcher,
} from "./helpers.js";

/**
 * Git in the states people leave it in: mid-merge, mid-rebase, mid-cherry-pick, mid-revert, mid-bisect,
 * another branch checked out while an agent works, a sparse checkout without the store. Baton refuses
 * before any agent runs, or stops cleanly at its next step, and never leaves a lock or checkpoint behind.
 */

/** Task 1 committed, and `file.txt` changed on `main` and on branch `side` so that they conflict. */
function conflictingRepo(): string {
  const dir = repo();
  ok(dir, ["task", "add", "Study the lexer", "-l", "general"]);
  writeFileSync(join(dir, "file.txt"), "base\n");
  git(dir, ["add", "-A"]);
  git(dir, ["commit", "-qm", "base"]);
  git(dir, ["checkout", "-qb", "side"]);
  writeFileSync(join(dir, "file.txt"), "side\n");
  git(dir, ["commit", "-qam", "side change"]);
  git(dir, ["checkout", "-q", "main"]);
  writeFileSync(join(dir, "file.txt"), "main\n");
  git(dir, ["commit", "-qam", "main change"]);
  return dir;
}

/** Runs git expecting it to stop on a conflict (a non-zero exit). */
function gitConflict(dir: string, args: string[]): void {
  expect(() => git(dir, args)).toThrow();
}

const noControlFiles = (dir: string) => {
  expect(existsSync(specs(dir, ".baton", "lock")), "lock left").toBe(false);
  const checkpoints = specs(dir, ".baton", "checkpoints");
  expect(existsSync(checkpoints) ? readdirSync(checkpoints) : [], "checkpoint left").toEqual([]);
};

describe("GATE IN in the middle of a git operation", () => {
  const cases: Array<[string, string, (dir: string) => void]> = [
    ["a merge", "merge", (d) => gitConflict(d, ["merge", "-q", "side"])],
    [
      "a rebase",
      "rebase",
      (d) => {
        git(d, ["checkout", "-q", "side"]);
        gitConflict(d, ["rebase", "-q", "main"]);
      },
    ],
    ["a cherry-pick", "cherry-pick", (d) => gitConflict(d, ["cherry-pick", "side"])],
    [
      // The first pick's conflict committed by hand: git has only its sequencer's to-do list left.
      "a cherry-pick or revert of several commits",
      "cherry-pick --continue",
      (d) => {
        git(d, ["checkout", "-q", "side"]);
        writeFileSync(join(d, "other.txt"), "more\n");
        git(d, ["add", "other.txt"]);
        git(d, ["commit", "-qm", "more on side"]);
        git(d, ["checkout", "-q", "main"]);
        gitConflict(d, ["cherry-pick", "side~1", "side"]);
        writeFileSync(join(d, "file.txt"), "resolved\n");
        git(d, ["commit", "-qam", "side change, resolved"]);
      },
    ],
    [
      "`git am`",
      "am --abort",
      (d) => {
        const patch = git(d, ["format-patch", "-1", "--stdout", "side"]);
        writeFileSync(join(d, ".git", "side.patch"), `${patch}\n`);
        gitConflict(d, ["am", join(d, ".git", "side.patch")]);
      },
    ],
    [
      "a revert",
      "revert",
      (d) => {
        writeFileSync(join(d, "file.txt"), "later\n");
        git(d, ["commit", "-qam", "later"]);
        gitConflict(d, ["revert", "--no-edit", "HEAD~1"]);
      },
    ],
    ["a bisect", "bisect", (d) => git(d, ["bisect", "start"])],
  ];
  for (const [what, word, enter] of cases) {
    it(`refuses during ${what}: no agent runs, nothing is written`, () => {
      const dir = conflictingRepo();
      enter(dir);
      const head = git(dir, ["rev-parse", "HEAD"]);
      const before = snapshotSpecs(dir);
      const refused = fails(dir, ["research", "1", "--script", startedResearcher(dir)]);
      expect(refused.stdout).toContain("GATE_IN");
      expect(refused.stdout).toContain(`in the middle of ${what}`);
      expect(refused.stdout).toContain(`git ${word}`);
      expect(existsSync(specs(dir, "1_study_the_lexer", "notes"))).toBe(false);
      expect(git(dir, ["rev-parse", "HEAD"])).toBe(head);
      const after = snapshotSpecs(dir);
      for (const [path, bytes] of before) expect(after.get(path)?.equals(bytes), path).toBe(true);
      noControlFiles(dir);
    });
  }
});

describe("the checkout moves while the agent works", () => {
  for (const [what, move] of [
    ["another branch is checked out", ["checkout", "-q", "other"]],
    ["HEAD is detached", ["checkout", "-q", "--detach"]],
  ] as const) {
    it(`${what}: the run stops at GATE OUT, records and commits nothing, releases lock and checkpoint`, async () => {
      const dir = repo();
      ok(dir, ["task", "add", "Study the lexer", "-l", "general"]);
      git(dir, ["add", "-A"]);
      git(dir, ["commit", "-qm", "tasks"]);
      git(dir, ["branch", "other"]);
      const heads = () => git(dir, ["rev-parse", "main", "other"]);
      const before = heads();
      const running = runBatonAsync(dir, ["research", "1", "--script", startedResearcher(dir, 1500)]);
      await agentStarted(dir, "1_study_the_lexer");
      git(dir, [...move]);
      const result = await running;
      expect(result.status, result.stdout + result.stderr).toBe(1);
      expect(result.stdout).toContain("BRANCH_CHANGED");
      expect(result.stdout).toContain("started on main");
      expect(heads()).toBe(before);
      noControlFiles(dir);
    });
  }
});

describe("a sparse checkout that leaves the store out", () => {
  it("task add refuses to start a second store, naming the sparse checkout", () => {
    const dir = repo();
    ok(dir, ["task", "add", "Study the lexer", "-l", "general"]);
    writeFileSync(join(dir, "README.md"), "hello\n");
    git(dir, ["add", "-A"]);
    git(dir, ["commit", "-qm", "tasks"]);
    git(dir, ["sparse-checkout", "set", "--no-cone", "/README.md"]);
    expect(existsSync(specs(dir, "state.json"))).toBe(false);
    const refused = fails(dir, ["task", "add", "Another"]);
    expect(refused.stderr).toContain("sparse checkout");
    expect(refused.stderr).toContain("git sparse-checkout add specs");
    expect(existsSync(specs(dir, "state.json"))).toBe(false);
    expect(existsSync(specs(dir, "TODO.md"))).toBe(false);
    git(dir, ["sparse-checkout", "disable"]);
    ok(dir, ["task", "add", "Another"]);
    expect(git(dir, ["diff", "--", "specs/state.json"])).toContain('"project_number": 2');
  });

  it("task add refuses where the committed store was deleted from the work tree", () => {
    const dir = repo();
    ok(dir, ["task", "add", "Study the lexer", "-l", "general"]);
    git(dir, ["add", "-A"]);
    git(dir, ["commit", "-qm", "tasks"]);
    for (const f of ["state.json", "TODO.md"]) rmSync(specs(dir, f));
    const refused = fails(dir, ["task", "add", "Another"]);
    expect(refused.stderr).toContain("git restore specs");
    expect(existsSync(specs(dir, "state.json"))).toBe(false);
  });
});

describe("a submodule", () => {
  it("an implementation that changes files inside a submodule is refused, naming the submodule", () => {
    const lib = repo();
    writeFileSync(join(lib, "lib.ts"), "export const lib = 1;\n");
    git(lib, ["add", "-A"]);
    git(lib, ["commit", "-qm", "lib"]);
    const dir = plannedTaskRepo(layeredPlanPhases(1, 1));
    git(dir, ["-c", "protocol.file.allow=always", "submodule", "add", "-q", lib, "vendor/lib"]);
    git(dir, ["commit", "-qm", "vendor lib"]);
    const agent = join(dir, ".git", "agent.json");
    writeFileSync(
      agent,
      JSON.stringify({ phases: { "*": { steps: phaseScriptSteps({ file: "vendor/lib/lib.ts" }) } } }),
    );
    const result = runBaton(dir, ["implement", "1", "--script", agent]);
    const output = result.stdout + result.stderr;
    expect(result.status, output).toBe(1);
    expect(output).toContain("SUBMODULE_CHANGED");
    expect(output).toContain("the submodule vendor/lib (vendor/lib/lib.ts");
    expect(git(dir, ["log", "--format=%s", "-1"]).trim()).toBe("vendor lib");
  });
});
