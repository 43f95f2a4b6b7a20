import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { GOOD_RESEARCH, git, ok, repo, runBatonAsync, scriptFile } from "./helpers.js";

/** A person committing in a loop while Baton runs: each of their commits must stay in HEAD with its file. */
describe("a person's commits made while Baton runs", () => {
  it("all stay in HEAD, with their files, whatever moment they land at", async () => {
    const dir = repo();
    for (let n = 1; n <= 3; n++) ok(dir, ["task", "add", `Study ${n}`, "-l", "general"]);
    git(dir, ["add", "-A"]);
    git(dir, ["commit", "-qm", "tasks"]);
    const agent = scriptFile(dir, ".git/agent", [{ sleepMs: 300 }, ...GOOD_RESEARCH]);
    const theirs: string[] = [];
    let running = true;
    const person = (async () => {
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
        await new Promise((r) => setTimeout(r, 200));
      }
    })();
    try {
      for (let n = 1; n <= 3; n++) {
        const result = await runBatonAsync(dir, ["research", String(n), "--script", agent]);
        expect(result.status, result.stdout + result.stderr).toBe(0);
      }
    } finally {
      running = false;
      await person;
    }
    expect(theirs.length).toBeGreaterThan(5);
    const tree = new Set(git(dir, ["ls-tree", "-r", "--name-only", "HEAD"]).trim().split("\n"));
    expect(theirs.filter((name) => !tree.has(name))).toEqual([]);
    // The person's index is HEAD's for their files.
    expect(git(dir, ["diff", "--cached", "--name-only", "HEAD", "--", "notes"])).toBe("");
  }, 120_000);
});
