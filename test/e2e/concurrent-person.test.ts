import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { generatePlan, phaseScriptSteps } from "../../src/testing/generate-plan.js";
import { GOOD_RESEARCH, git, ok, repo, runBatonAsync, scriptFile } from "./helpers.js";

/** Commits a new file every `everyMs` until stopped; the names of those that landed. */
function personCommitting(dir: string, everyMs: number): { stop(): Promise<string[]> } {
  const theirs: string[] = [];
  let running = true;
  const loop = (async () => {
    for (let k = 0; running; k++) {
      const name = `notes/person-${k}.txt`;
      mkdirSync(join(dir, "notes"), { recursive: true });
      writeFileSync(join(dir, name), `note ${k}\n`);
      try {
        git(dir, ["add", "--", name]);
        git(dir, ["commit", "-qm", `person ${k}`, "--", name]);
        theirs.push(name);
      } catch {
        // the index was locked by Baton's own git a moment: the person tries again
      }
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return theirs;
    },
  };
}

/** A person committing in a loop while Baton runs: each of their commits must stay in HEAD with its file. */
describe("a person's commits made while Baton runs", () => {
  it("all stay in HEAD, with their files, whatever moment they land at", async () => {
    const dir = repo();
    for (let n = 1; n <= 3; n++) ok(dir, ["task", "add", `Study ${n}`, "-l", "general"]);
    git(dir, ["add", "-A"]);
    git(dir, ["commit", "-qm", "tasks"]);
    const agent = scriptFile(dir, ".git/agent", [{ sleepMs: 300 }, ...GOOD_RESEARCH]);
    const person = personCommitting(dir, 200);
    try {
      for (let n = 1; n <= 3; n++) {
        const result = await runBatonAsync(dir, ["research", String(n), "--script", agent]);
        expect(result.status, result.stdout + result.stderr).toBe(0);
      }
    } finally {
      await person.stop();
    }
    const theirs = await person.stop();
    expect(theirs.length).toBeGreaterThan(5);
    const tree = new Set(git(dir, ["ls-tree", "-r", "--name-only", "HEAD"]).trim().split("\n"));
    expect(theirs.filter((name) => !tree.has(name))).toEqual([]);
    // The person's index is HEAD's for the files they committed (one whose commit met a lock stays staged).
    expect(git(dir, ["diff", "--cached", "--name-only", "HEAD", "--", ...theirs])).toBe("");
  }, 120_000);
});

describe("a person's commits during a plan run in the shared tree", () => {
  it("stay in HEAD, and no phase commit carries them", async () => {
    const dir = repo();
    ok(dir, ["task", "add", "Build", "-l", "general"]);
    ok(dir, ["task", "status", "1", "planned", "--force"]);
    const plan = "specs/1_build/plans/implementation-001.md";
    mkdirSync(join(dir, "specs/1_build/plans"), { recursive: true });
    const phases = [
      { id: "1", name: "First" },
      { id: "2", name: "Second", dependencies: ["1"] },
    ];
    writeFileSync(join(dir, plan), generatePlan({ style: "task", taskNumber: 1, title: "Build", phases }));
    git(dir, ["add", "-A"]);
    git(dir, ["commit", "-qm", "planned"]);
    const agent = join(dir, ".git", "phases.json");
    writeFileSync(agent, JSON.stringify({ phases: { "*": { steps: phaseScriptSteps({ sleepMs: 400 }) } } }));
    const person = personCommitting(dir, 200);
    let result: Awaited<ReturnType<typeof runBatonAsync>>;
    try {
      result = await runBatonAsync(dir, ["implement", "1", "--script", agent]);
    } finally {
      await person.stop();
    }
    expect(result.status, result.stdout + result.stderr).toBe(0);
    const theirs = await person.stop();
    const tree = new Set(git(dir, ["ls-tree", "-r", "--name-only", "HEAD"]).trim().split("\n"));
    expect(theirs.filter((name) => !tree.has(name))).toEqual([]);
    for (const sha of git(dir, ["log", "--format=%H", "--grep", "^task 1"]).trim().split("\n")) {
      const files = git(dir, ["show", "--name-only", "--format=", sha]).trim().split("\n");
      expect(
        files.filter((f) => f.startsWith("notes/")),
        sha,
      ).toEqual([]);
    }
  }, 120_000);
});
