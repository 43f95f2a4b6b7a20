import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { git, tempGitRepo } from "../../../test/support/cli.js";
import { sealedCommit } from "../commit/sealed-commit.js";
import { historyChanges } from "./git-history.js";
import { readBaseline } from "./work-tree-baseline.js";

let repo: { dir: string; cleanup: () => void };
const TRAILER = "\n\nSession: sess_1700000000_abcdef\n";

beforeEach(() => {
  repo = tempGitRepo("baton-history-");
  writeFileSync(join(repo.dir, "a.txt"), "a\n");
  git(repo.dir, ["add", "-A"]);
  git(repo.dir, ["commit", "-qm", "base"]);
});
afterEach(() => repo.cleanup());

/** A Baton commit (sealed) made through an index of its own, the shared index not yet brought up to it. */
async function batonCommitNotYetSynced(file: string, text: string, subject = "task 1: done"): Promise<void> {
  writeFileSync(join(repo.dir, file), text);
  const index = { GIT_INDEX_FILE: join(repo.dir, ".git", "baton-index-test") };
  const env = { ...process.env, ...index };
  execFileSync("git", ["read-tree", "HEAD"], { cwd: repo.dir, env });
  execFileSync("git", ["add", file], { cwd: repo.dir, env });
  const head = git(repo.dir, ["rev-parse", "HEAD"]).trim();
  const made = await sealedCommit(repo.dir, index, `${subject}${TRAILER}`, [head], head);
  expect(made.ok).toBe(true);
}

describe("history changes since the baseline", () => {
  it("sees nothing while the shared index only lags behind Baton's own commits", async () => {
    const baseline = (await readBaseline(repo.dir))!;
    await batonCommitNotYetSynced("a.txt", "changed by Baton\n");
    await batonCommitNotYetSynced("new.txt", "added by Baton\n");
    expect(git(repo.dir, ["diff", "--cached", "--name-only"]).trim().split("\n")).toEqual([
      "a.txt",
      "new.txt",
    ]);
    expect(await historyChanges(repo.dir, baseline)).toEqual([]);
  });

  it("lets another branch move forward by Baton's commits (a phase's worktree sees main move), not by others", async () => {
    git(repo.dir, ["checkout", "-q", "-b", "baton/phase-1"]);
    const baseline = (await readBaseline(repo.dir))!;
    git(repo.dir, ["checkout", "-q", "main"]);
    await batonCommitNotYetSynced("c.txt", "c\n", "task 2: complete research");
    git(repo.dir, ["reset", "-q"]);
    git(repo.dir, ["checkout", "-q", "baton/phase-1"]);
    expect(await historyChanges(repo.dir, baseline)).toEqual([]);
    git(repo.dir, ["checkout", "-q", "main"]);
    git(repo.dir, ["commit", "-q", "--allow-empty", "-m", "by hand"]);
    git(repo.dir, ["checkout", "-q", "baton/phase-1"]);
    expect(await historyChanges(repo.dir, baseline)).toEqual(["ref refs/heads/main moved"]);
  });

  it("names a file someone staged, a commit without a trailer, a tag and an amended baseline", async () => {
    const baseline = (await readBaseline(repo.dir))!;
    writeFileSync(join(repo.dir, "b.txt"), "b\n");
    git(repo.dir, ["add", "b.txt"]);
    git(repo.dir, ["tag", "v1"]);
    expect(await historyChanges(repo.dir, baseline)).toEqual([
      "ref refs/tags/v1 was created",
      "the index changed: b.txt was staged",
    ]);
    git(repo.dir, ["commit", "-qm", "sneaky"]);
    expect((await historyChanges(repo.dir, baseline))[0]).toMatch(
      /^commit [0-9a-f]{12} \("sneaky"\) is not Baton's$/,
    );
    git(repo.dir, ["commit", "-q", "--amend", "-m", `task 1: done${TRAILER}`]);
    // The trailer typed by hand is text, not Baton's seal: still not Baton's commit.
    expect((await historyChanges(repo.dir, baseline))[0]).toMatch(
      /^commit [0-9a-f]{12} \("task 1: done"\) carries the Session trailer sess_1700000000_abcdef but no Baton seal: Baton did not make it$/,
    );
    git(repo.dir, ["reset", "-q", "--hard", "HEAD~1"]);
    git(repo.dir, ["commit", "-q", "--amend", "-m", `base rewritten${TRAILER}`]);
    expect((await historyChanges(repo.dir, baseline))[0]).toMatch(
      /no longer contains the baseline commit .* \(amended or reset\)$/,
    );
  });
});
