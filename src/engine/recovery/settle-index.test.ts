import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { dropDeadPhaseBranches, settleSharedIndex } from "./settle-index.js";

const SESSION = "sess_1795940390_23b7fe";
let dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  dirs = [];
});

function repo() {
  const dir = mkdtempSync(join(tmpdir(), "baton-settle-index-"));
  dirs.push(dir);
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.email=t@e", "-c", "user.name=T", ...args], {
      cwd: dir,
      encoding: "utf8",
    });
  git("init", "-q");
  writeFileSync(join(dir, "a.txt"), "one\n");
  writeFileSync(join(dir, "c.txt"), "base\n");
  git("add", "-A");
  git("commit", "-qm", "start");
  return { dir, git };
}

/** A commit of `files` made as Baton makes one: through an index of its own, HEAD moved, the shared index left. */
function commitAside(r: ReturnType<typeof repo>, files: Record<string, string>, message: string): void {
  const index = join(r.dir, ".git", "aside-index");
  const env = { ...process.env, GIT_INDEX_FILE: index };
  const run = (...args: string[]) =>
    execFileSync("git", ["-c", "user.email=t@e", "-c", "user.name=T", ...args], {
      cwd: r.dir,
      encoding: "utf8",
      env,
    });
  run("read-tree", "HEAD");
  for (const [path, text] of Object.entries(files)) {
    writeFileSync(join(r.dir, path), text);
    run("add", "--", path);
  }
  const tree = run("write-tree").trim();
  const sha = run("commit-tree", tree, "-p", "HEAD", "-m", message).trim();
  run("update-ref", "HEAD", sha);
  rmSync(index);
}

describe("the shared index after a run died between Baton's git steps", () => {
  it("takes HEAD's entries for what the dead session committed, leaving the work tree and the person's staging", () => {
    const r = repo();
    writeFileSync(join(r.dir, "mine.txt"), "the person's\n");
    r.git("add", "mine.txt");
    commitAside(r, { "a.txt": "two\n", "b.txt": "new\n" }, `task 1 phase 1: done\n\nSession: ${SESSION}\n`);
    // Killed here: a person's `git commit` would now undo a.txt and delete b.txt.
    expect(r.git("diff", "--cached", "--name-status", "HEAD").trim().split("\n").sort()).toEqual(
      ["A\tmine.txt", "D\tb.txt", "M\ta.txt"].sort(),
    );
    return settleSharedIndex(r.dir, SESSION).then((done) => {
      expect(done.synced.sort()).toEqual(["a.txt", "b.txt"]);
      expect(r.git("diff", "--cached", "--name-status", "HEAD").trim()).toBe("A\tmine.txt");
      expect(readFileSync(join(r.dir, "a.txt"), "utf8")).toBe("two\n");
      expect(r.git("status", "--porcelain").trim()).toBe("A  mine.txt");
    });
  });

  it("puts back a worktree phase's result applied but never committed, and keeps what the person changed after", async () => {
    const r = repo();
    const base = r.git("rev-parse", "HEAD").trim();
    r.git("branch", `baton/${SESSION}/phase-1`, base);
    r.git("worktree", "add", "-q", join(r.dir, ".git", "wt"), `baton/${SESSION}/phase-1`);
    const wt = join(r.dir, ".git", "wt");
    writeFileSync(join(wt, "c.txt"), "phase\n");
    writeFileSync(join(wt, "d.txt"), "phase new\n");
    writeFileSync(join(wt, "a.txt"), "phase a\n");
    execFileSync(
      "git",
      ["-c", "user.email=t@e", "-c", "user.name=T", "commit", "-qam", "phase", "--allow-empty"],
      { cwd: wt },
    );
    execFileSync("git", ["add", "d.txt"], { cwd: wt });
    execFileSync(
      "git",
      ["-c", "user.email=t@e", "-c", "user.name=T", "commit", "-q", "--amend", "--no-edit"],
      { cwd: wt },
    );
    const tip = r.git("rev-parse", `baton/${SESSION}/phase-1`).trim();
    // Applied to the shared index and tree as Baton applies a phase, then killed before its commit.
    r.git("read-tree", "-m", "-u", `${base}^{tree}`, `${tip}^{tree}`);
    // The person edits one of those files afterwards: that one is theirs now.
    writeFileSync(join(r.dir, "a.txt"), "the person's edit\n");
    const done = await settleSharedIndex(r.dir, SESSION);
    expect(done.undone.sort()).toEqual(["c.txt", "d.txt"]);
    expect(done.kept).toEqual(["a.txt"]);
    expect(readFileSync(join(r.dir, "c.txt"), "utf8")).toBe("base\n");
    expect(existsSync(join(r.dir, "d.txt"))).toBe(false);
    expect(readFileSync(join(r.dir, "a.txt"), "utf8")).toBe("the person's edit\n");
    expect(r.git("diff", "--cached", "--name-only", "HEAD").trim()).toBe("a.txt");
  });

  it("drops the dead session's phase branches and worktrees afterwards, except one its errors keep for the person", async () => {
    const r = repo();
    const wt = (id: string) => join(r.dir, ".git", `wt-${id}`);
    for (const id of ["1", "2"]) r.git("worktree", "add", "-q", "-b", `baton/${SESSION}/phase-${id}`, wt(id));
    r.git("branch", "baton/sess_1700000000_abcdef/phase-1");
    const dropped = await dropDeadPhaseBranches(r.dir, SESSION, new Set([`baton/${SESSION}/phase-2`]));
    expect(dropped).toEqual([`baton/${SESSION}/phase-1`]);
    expect(existsSync(wt("1"))).toBe(false);
    expect(existsSync(wt("2"))).toBe(true);
    expect(
      r.git("branch", "--list", "baton/*", "--format=%(refname:short)").trim().split("\n").sort(),
    ).toEqual(["baton/sess_1700000000_abcdef/phase-1", `baton/${SESSION}/phase-2`]);
  });
});
