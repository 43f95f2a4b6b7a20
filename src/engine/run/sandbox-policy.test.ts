import { execFileSync } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { sandboxPolicy } from "./sandbox-policy.js";

const base = realpathSync(mkdtempSync(join(tmpdir(), "baton-sandbox-policy-")));
afterAll(() => rmSync(base, { recursive: true, force: true }));
const git = (cwd: string, args: string[]) => execFileSync("git", args, { cwd, encoding: "utf8" });

/** What git itself names as the work tree's git dir and common dir. */
const gitSays = (dir: string) =>
  git(dir, ["rev-parse", "--path-format=absolute", "--git-dir", "--git-common-dir"]).trim().split("\n");

describe("the sandbox's git folders, read without starting git", () => {
  it("are the ones git names, for a repository, a worktree and a separate git dir", async () => {
    const repo = join(base, "repo");
    git(base, ["init", "-q", repo]);
    git(repo, ["commit", "-q", "--allow-empty", "-m", "first"]);
    const worktree = join(base, "worktree");
    git(repo, ["worktree", "add", "-q", worktree]);
    const separate = join(base, "separate");
    git(base, ["init", "-q", `--separate-git-dir=${join(base, "elsewhere.git")}`, separate]);
    for (const dir of [repo, worktree, separate]) {
      const policy = await sandboxPolicy(dir, []);
      expect(new Set(policy.readOnly), dir).toEqual(new Set([...gitSays(dir), join(dir, ".git")]));
    }
  });
});
