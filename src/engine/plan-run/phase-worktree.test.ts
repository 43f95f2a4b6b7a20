import { execFileSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  applyPhaseCommit,
  commitInWorktree,
  createPhaseWorktree,
  headSha,
  type PhaseWorktree,
  prunePhaseWorktrees,
  removePhaseWorktree,
} from "./phase-worktree.js";

const SESSION = "sess_1700000000_abcdef";
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    env: { ...process.env, GIT_OPTIONAL_LOCKS: "0" },
    stdio: ["ignore", "pipe", "pipe"],
  });
}

function write(root: string, path: string, text: string): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
}

function read(root: string, path: string): string {
  return readFileSync(join(root, path), "utf8");
}

const LINES = (n: number, tag = "line") =>
  Array.from({ length: n }, (_, i) => `${tag} ${i + 1}`).join("\n") + "\n";

/** A repository whose path contains spaces, with a few committed files. */
function repo(): string {
  const parent = mkdtempSync(join(tmpdir(), "baton worktree "));
  dirs.push(parent);
  const root = join(parent, "my repo");
  mkdirSync(root);
  git(root, "init", "--quiet", "--initial-branch=main");
  git(root, "config", "user.name", "Baton Test");
  git(root, "config", "user.email", "t@example.com");
  git(root, "config", "commit.gpgSign", "false");
  write(root, "src/a.ts", LINES(20, "a"));
  write(root, "src/b.ts", LINES(20, "b"));
  write(root, "old.txt", "to be deleted\n");
  write(root, "specs/state.json", '{"v":1}\n');
  write(root, ".gitignore", "*.log\n");
  git(root, "add", "--all");
  git(root, "commit", "--quiet", "-m", "init");
  return root;
}

async function worktree(root: string, phaseId: string, session = SESSION): Promise<PhaseWorktree> {
  const created = await createPhaseWorktree({ root, sessionId: session, phaseId, base: await headSha(root) });
  if (!created.ok) throw new Error(created.reason);
  return created.worktree;
}

async function commit(wt: PhaseWorktree, exclude: string[] = []): Promise<string> {
  const result = await commitInWorktree(wt, { message: `phase ${wt.phaseId}`, exclude });
  if (!result.ok || result.sha === null) throw new Error(`no commit: ${JSON.stringify(result)}`);
  return result.sha;
}

function replaceLine(root: string, path: string, line: number, text: string): void {
  const lines = read(root, path).split("\n");
  lines[line - 1] = text;
  writeFileSync(join(root, path), lines.join("\n"));
}

/** Everything a user could lose: every file's bytes outside .git, the raw index file, status and stash-able state. */
function snapshot(root: string) {
  const files: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === ".git") continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else files[relative(root, path)] = readFileSync(path).toString("base64");
    }
  };
  walk(root);
  const gitDir = join(root, ".git");
  return {
    files,
    index: readFileSync(join(gitDir, "index")).toString("base64"),
    status: git(root, "status", "--porcelain=v1", "--untracked-files=all"),
    staged: git(root, "diff", "--cached"),
    head: git(root, "rev-parse", "HEAD"),
    inProgress: ["CHERRY_PICK_HEAD", "MERGE_HEAD", "MERGE_MSG", "sequencer"].filter((f) =>
      existsSync(join(gitDir, f)),
    ),
  };
}

function branchExists(root: string, branch: string): boolean {
  try {
    git(root, "rev-parse", "--verify", "--quiet", `refs/heads/${branch}`);
    return true;
  } catch {
    return false;
  }
}

describe("createPhaseWorktree", () => {
  it("checks out the base on baton/<session>/phase-<id> under the git common dir, in a path with spaces", async () => {
    const root = repo();
    const base = await headSha(root);
    const wt = await worktree(root, "2a");
    expect(wt.path).toBe(join(root, ".git", "baton-worktrees", SESSION, "phase-2a"));
    expect(wt).toMatchObject({
      branch: `baton/${SESSION}/phase-2a`,
      base,
      phaseId: "2a",
      sessionId: SESSION,
    });
    expect(read(wt.path, "src/a.ts")).toBe(LINES(20, "a"));
    expect(git(wt.path, "rev-parse", "HEAD").trim()).toBe(base);
    expect(git(wt.path, "symbolic-ref", "HEAD").trim()).toBe(`refs/heads/baton/${SESSION}/phase-2a`);
    expect(git(root, "worktree", "list", "--porcelain")).toContain(`worktree ${wt.path}\n`);
    // Inside .git: the main tree does not see it.
    expect(git(root, "status", "--porcelain")).toBe("");
  });

  it("refuses bad ids, a base that is no commit, and a branch that already exists", async () => {
    const root = repo();
    const base = await headSha(root);
    expect((await createPhaseWorktree({ root, sessionId: "a b", phaseId: "1", base })).ok).toBe(false);
    expect((await createPhaseWorktree({ root, sessionId: SESSION, phaseId: "../x", base })).ok).toBe(false);
    expect((await createPhaseWorktree({ root, sessionId: SESSION, phaseId: "1", base: "nope" })).ok).toBe(
      false,
    );
    await worktree(root, "1");
    const again = await createPhaseWorktree({ root, sessionId: SESSION, phaseId: "1", base });
    expect(again).toMatchObject({ ok: false, reason: expect.stringContaining("already exists") });
  });
});

describe("commitInWorktree", () => {
  it("commits nothing when nothing changed", async () => {
    const root = repo();
    const wt = await worktree(root, "1");
    expect(await commitInWorktree(wt, { message: "m", exclude: [] })).toEqual({
      ok: true,
      sha: null,
      files: [],
    });
  });

  it("commits added, modified and deleted files as one commit on the base, leaving excluded files out", async () => {
    const root = repo();
    const wt = await worktree(root, "1");
    write(wt.path, "src/new.ts", "export const x = 1;\n");
    replaceLine(wt.path, "src/a.ts", 3, "a three");
    rmSync(join(wt.path, "old.txt"));
    write(wt.path, "specs/state.json", '{"v":2}\n');
    write(wt.path, "specs/1_x/.return-meta.json", "{}\n");
    write(wt.path, "specs/1_x/.return-meta-2.json", "{}\n");
    write(wt.path, "specs/1_x/report.md", "# report\n");
    write(wt.path, ".baton/run.json", "{}\n");
    write(wt.path, "debug.log", "ignored\n");
    // The agent staged an excluded file itself and made a commit of its own: both folded or dropped.
    git(wt.path, "add", "specs/state.json");
    write(wt.path, "src/b.ts", `${LINES(20, "b")}b extra\n`);
    git(wt.path, "commit", "--quiet", "-am", "agent commit");

    const result = await commitInWorktree(wt, {
      message: "task 1 phase 1: x\n\nSession: s\n",
      exclude: ["specs/state.json", "specs/1_x/.return-meta*.json", ".baton"],
    });
    expect(result.ok).toBe(true);
    if (!result.ok || result.sha === null) return;
    expect(result.files).toEqual(["old.txt", "specs/1_x/report.md", "src/a.ts", "src/b.ts", "src/new.ts"]);
    expect(git(wt.path, "rev-parse", `${result.sha}^`).trim()).toBe(wt.base);
    expect(git(wt.path, "log", "-1", "--format=%B", result.sha)).toMatch(
      /^task 1 phase 1: x\n\nSession: s\nBaton-Seal: [0-9a-f]{32} \S+\n\n$/,
    );
    expect(git(root, "rev-parse", `refs/heads/${wt.branch}`).trim()).toBe(result.sha);
    // The excluded files are still in the worktree, uncommitted.
    expect(read(wt.path, "specs/state.json")).toBe('{"v":2}\n');
    expect(git(wt.path, "show", `${result.sha}:specs/state.json`)).toBe('{"v":1}\n');
    expect(git(wt.path, "status", "--porcelain", "--untracked-files=all").split("\n").sort().join("\n")).toBe(
      [
        "",
        " M specs/state.json",
        "?? .baton/run.json",
        "?? specs/1_x/.return-meta-2.json",
        "?? specs/1_x/.return-meta.json",
      ].join("\n"),
    );
  });
});

describe("applyPhaseCommit", () => {
  it("stages the phase's added, modified and deleted files without committing; unrelated edits survive", async () => {
    const root = repo();
    const head = await headSha(root);
    const wt = await worktree(root, "1");
    write(wt.path, "src/new.ts", "new\n");
    replaceLine(wt.path, "src/a.ts", 1, "a one");
    rmSync(join(wt.path, "old.txt"));
    write(wt.path, "specs/state.json", '{"v":2}\n');
    const sha = await commit(wt, ["specs/state.json"]);
    // The user keeps working on an unrelated file meanwhile.
    write(root, "src/b.ts", "user edit\n");
    write(root, "notes.md", "untracked user file\n");

    const applied = await applyPhaseCommit({ root, sha });
    expect(applied).toEqual({ ok: true, files: ["old.txt", "src/a.ts", "src/new.ts"] });
    expect(await headSha(root)).toBe(head);
    expect(git(root, "diff", "--cached", "--name-status")).toBe("D\told.txt\nM\tsrc/a.ts\nA\tsrc/new.ts\n");
    expect(existsSync(join(root, "old.txt"))).toBe(false);
    expect(read(root, "src/new.ts")).toBe("new\n");
    expect(read(root, "src/a.ts").split("\n")[0]).toBe("a one");
    expect(read(root, "src/b.ts")).toBe("user edit\n");
    expect(read(root, "notes.md")).toBe("untracked user file\n");
    expect(read(root, "specs/state.json")).toBe('{"v":1}\n');
    expect(git(root, "status", "--porcelain")).toBe(
      "D  old.txt\nM  src/a.ts\n M src/b.ts\nA  src/new.ts\n?? notes.md\n",
    );
  });

  it("applies two concurrent phases in phase order when they touch different files (or different lines)", async () => {
    const root = repo();
    const wt1 = await worktree(root, "1");
    const wt2 = await worktree(root, "2");
    replaceLine(wt1.path, "src/a.ts", 2, "phase 1 was here");
    replaceLine(wt1.path, "src/b.ts", 1, "phase 1 top of b");
    replaceLine(wt2.path, "src/b.ts", 19, "phase 2 bottom of b");
    write(wt2.path, "src/two.ts", "two\n");
    const sha1 = await commit(wt1);
    const sha2 = await commit(wt2);
    expect(existsSync(wt1.path) && existsSync(wt2.path)).toBe(true);

    expect(await applyPhaseCommit({ root, sha: sha1 })).toEqual({
      ok: true,
      files: ["src/a.ts", "src/b.ts"],
    });
    expect(await applyPhaseCommit({ root, sha: sha2, appliedFiles: ["src/a.ts", "src/b.ts"] })).toEqual({
      ok: true,
      files: ["src/b.ts", "src/two.ts"],
    });
    const b = read(root, "src/b.ts").split("\n");
    expect([b[0], b[18]]).toEqual(["phase 1 top of b", "phase 2 bottom of b"]);
    expect(read(root, "src/a.ts").split("\n")[1]).toBe("phase 1 was here");
    expect(git(root, "status", "--porcelain")).toBe("M  src/a.ts\nM  src/b.ts\nA  src/two.ts\n");

    for (const wt of [wt1, wt2]) await removePhaseWorktree(root, wt, { keepBranch: false });
    expect(existsSync(join(root, ".git", "baton-worktrees", SESSION))).toBe(false);
    expect(branchExists(root, wt1.branch) || branchExists(root, wt2.branch)).toBe(false);
  });

  it("also applies after the earlier phase was committed in the main tree", async () => {
    const root = repo();
    const wt1 = await worktree(root, "1");
    const wt2 = await worktree(root, "2");
    replaceLine(wt1.path, "src/a.ts", 1, "one");
    replaceLine(wt2.path, "src/a.ts", 20, "twenty");
    const sha1 = await commit(wt1);
    const sha2 = await commit(wt2);
    expect((await applyPhaseCommit({ root, sha: sha1 })).ok).toBe(true);
    git(root, "commit", "--quiet", "-m", "task 1 phase 1");
    expect(await applyPhaseCommit({ root, sha: sha2 })).toEqual({ ok: true, files: ["src/a.ts"] });
    expect(git(root, "diff", "--cached", "--name-only")).toBe("src/a.ts\n");
    const a = read(root, "src/a.ts").split("\n");
    expect([a[0], a[19]]).toEqual(["one", "twenty"]);
  });

  it("reports a conflict with the second phase, leaves the main tree byte for byte and keeps the branch", async () => {
    const root = repo();
    const wt1 = await worktree(root, "1");
    const wt2 = await worktree(root, "2");
    replaceLine(wt1.path, "src/a.ts", 5, "phase 1 line five");
    replaceLine(wt2.path, "src/a.ts", 5, "phase 2 line five");
    write(wt2.path, "src/also.ts", "clean part of phase 2\n");
    rmSync(join(wt2.path, "old.txt"));
    const sha1 = await commit(wt1);
    const sha2 = await commit(wt2);
    expect((await applyPhaseCommit({ root, sha: sha1 })).ok).toBe(true);
    write(root, "src/b.ts", "unrelated user edit\n");
    const before = snapshot(root);

    const applied = await applyPhaseCommit({ root, sha: sha2 });
    expect(applied).toMatchObject({ ok: false, reason: "conflict", files: ["src/a.ts"] });
    expect(snapshot(root)).toEqual(before);
    expect(before.inProgress).toEqual([]);
    expect(read(root, "src/a.ts")).not.toContain("<<<<<<<");

    await removePhaseWorktree(root, wt2, { keepBranch: true });
    await removePhaseWorktree(root, wt1, { keepBranch: false });
    expect(existsSync(wt2.path)).toBe(false);
    expect(git(root, "worktree", "list", "--porcelain")).not.toContain("baton-worktrees");
    expect(git(root, "rev-parse", `refs/heads/${wt2.branch}`).trim()).toBe(sha2);
    expect(git(root, "show", `${sha2}:src/a.ts`).split("\n")[4]).toBe("phase 2 line five");
    expect(branchExists(root, wt1.branch)).toBe(false);
    expect(snapshot(root)).toEqual(before);
  });

  it("refuses when the user has uncommitted changes to a file the phase changed, touching nothing", async () => {
    const root = repo();
    const wt = await worktree(root, "1");
    replaceLine(wt.path, "src/a.ts", 1, "phase edit");
    write(wt.path, "src/b.ts", "phase edit of b\n");
    write(wt.path, "src/added.ts", "phase adds this\n");
    const sha = await commit(wt);

    write(root, "src/a.ts", `${LINES(20, "a")}user line\n`);
    write(root, "src/added.ts", "user's own untracked file\n");
    const before = snapshot(root);
    const applied = await applyPhaseCommit({ root, sha });
    expect(applied).toMatchObject({ ok: false, reason: "dirty", files: ["src/a.ts", "src/added.ts"] });
    expect(snapshot(root)).toEqual(before);
    expect(read(root, "src/a.ts")).toBe(`${LINES(20, "a")}user line\n`);
  });

  it("refuses an untracked file where the phase needs a directory", async () => {
    const root = repo();
    const wt = await worktree(root, "1");
    write(wt.path, "docs/guide.md", "phase doc\n");
    const sha = await commit(wt);
    write(root, "docs", "user's untracked file named docs\n");
    const before = snapshot(root);
    expect(await applyPhaseCommit({ root, sha })).toMatchObject({
      ok: false,
      reason: "dirty",
      files: ["docs/guide.md"],
    });
    expect(snapshot(root)).toEqual(before);
  });

  it("refuses an ignored file in the way, and with appliedFiles a staged user change", async () => {
    const root = repo();
    const wt = await worktree(root, "1");
    write(wt.path, "keep.log", "force-added by the phase\n");
    git(wt.path, "add", "--force", "keep.log");
    replaceLine(wt.path, "src/b.ts", 1, "phase edit");
    const sha = await commit(wt);

    write(root, "keep.log", "user's ignored file\n");
    replaceLine(root, "src/b.ts", 20, "user staged edit");
    git(root, "add", "src/b.ts");
    const before = snapshot(root);
    expect(await applyPhaseCommit({ root, sha, appliedFiles: [] })).toMatchObject({
      ok: false,
      reason: "dirty",
      files: ["keep.log", "src/b.ts"],
    });
    expect(snapshot(root)).toEqual(before);
  });

  it("applies a file turned into a directory, a mode change and a symlink", async () => {
    const root = repo();
    const wt = await worktree(root, "1");
    rmSync(join(wt.path, "old.txt"));
    write(wt.path, "old.txt/inside.txt", "now a directory\n");
    chmodSync(join(wt.path, "src/b.ts"), 0o755);
    symlinkSync("src/a.ts", join(wt.path, "link.ts"));
    const sha = await commit(wt);
    expect(await applyPhaseCommit({ root, sha })).toEqual({
      ok: true,
      files: ["link.ts", "old.txt", "old.txt/inside.txt", "src/b.ts"],
    });
    expect(read(root, "old.txt/inside.txt")).toBe("now a directory\n");
    expect(statSync(join(root, "src/b.ts")).mode & 0o111).not.toBe(0);
    expect(readlinkSync(join(root, "link.ts"))).toBe("src/a.ts");
    expect(git(root, "status", "--porcelain")).toBe(
      "A  link.ts\nD  old.txt\nA  old.txt/inside.txt\nM  src/b.ts\n",
    );
  });

  it("fails as git error for something that is not a commit", async () => {
    const root = repo();
    expect(await applyPhaseCommit({ root, sha: "0".repeat(40) })).toMatchObject({ ok: false, reason: "git" });
  });
});

describe("prunePhaseWorktrees", () => {
  it("removes a crashed session's worktrees, keeps branches with unapplied commits, spares other sessions", async () => {
    const root = repo();
    const applied = await worktree(root, "1");
    const pending = await worktree(root, "2");
    const empty = await worktree(root, "3");
    const vanished = await worktree(root, "4");
    const other = await worktree(root, "1", "sess_1700000001_123456");
    replaceLine(applied.path, "src/a.ts", 1, "applied and committed");
    replaceLine(pending.path, "src/b.ts", 1, "never applied");
    write(empty.path, "scratch.log", "ignored leftovers\n");
    const appliedSha = await commit(applied);
    const pendingSha = await commit(pending);
    expect((await applyPhaseCommit({ root, sha: appliedSha })).ok).toBe(true);
    git(root, "commit", "--quiet", "-m", "task 1 phase 1");
    // The crash: nothing removed; one worktree directory even lost, its registration stale.
    rmSync(vanished.path, { recursive: true, force: true });

    const result = await prunePhaseWorktrees(root, SESSION);
    expect(result.removed).toEqual([applied.path, pending.path, empty.path, vanished.path].sort());
    expect(result.keptBranches).toEqual([pending.branch]);
    expect(existsSync(join(root, ".git", "baton-worktrees", SESSION))).toBe(false);
    expect(git(root, "rev-parse", `refs/heads/${pending.branch}`).trim()).toBe(pendingSha);
    for (const wt of [applied, empty, vanished]) expect(branchExists(root, wt.branch)).toBe(false);
    const listed = git(root, "worktree", "list", "--porcelain");
    expect(listed).not.toContain(SESSION);
    expect(listed).toContain(`worktree ${other.path}\n`);
    expect(existsSync(other.path) && branchExists(root, other.branch)).toBe(true);

    expect(await prunePhaseWorktrees(root, SESSION)).toEqual({ removed: [], keptBranches: [pending.branch] });
  });

  it("removes a worktree directory left on disk without a registration", async () => {
    const root = repo();
    const wt = await worktree(root, "1");
    rmSync(join(root, ".git", "worktrees"), { recursive: true, force: true });
    expect(existsSync(wt.path)).toBe(true);
    const result = await prunePhaseWorktrees(root, SESSION);
    expect(result).toEqual({ removed: [wt.path], keptBranches: [] });
    expect(existsSync(wt.path)).toBe(false);
    expect(branchExists(root, wt.branch)).toBe(false);
  });
});
