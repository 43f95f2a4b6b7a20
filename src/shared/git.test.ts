import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readHeadRef } from "./git.js";

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function repo(): string {
  dir = mkdtempSync(join(tmpdir(), "baton-git-"));
  const git = (...args: string[]) => execFileSync("git", args, { cwd: dir, stdio: "ignore" });
  git("init", "-q", "-b", "main");
  git("-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-q", "--allow-empty", "-m", "one");
  return dir;
}

describe("readHeadRef", () => {
  it("names the branch checked out, and null for a detached HEAD", async () => {
    const root = repo();
    expect(await readHeadRef(root)).toEqual({ ok: true, ref: "refs/heads/main" });
    execFileSync("git", ["checkout", "-q", "--detach"], { cwd: root });
    expect(await readHeadRef(root)).toEqual({ ok: true, ref: null });
  });

  it("reports git's own failure as a failure, never as a detached HEAD", async () => {
    const root = repo();
    // A HEAD git cannot parse: symbolic-ref fails with an error of its own, not the quiet "not a symbolic ref".
    writeFileSync(join(root, ".git", "HEAD"), "garbage\n");
    const broken = await readHeadRef(root);
    expect(broken.ok).toBe(false);
    expect(!broken.ok && broken.message).toContain(`git symbolic-ref HEAD failed in ${root}`);

    // A folder that is gone (a worktree removed under the run): git cannot even start there.
    expect((await readHeadRef(join(root, "no-such-folder"))).ok).toBe(false);
  });
});
