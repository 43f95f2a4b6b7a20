import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { git, tempGitRepo } from "../../../test/support/cli.js";
import { snapshotWork, workPathspecs } from "../gate-out/result-snapshot.js";
import { commitTaskChanges, sessionCommitSubjects } from "./git-commit.js";
import { sealedCommit } from "./sealed-commit.js";

let repo: { dir: string; cleanup: () => void };
let root: string;
const folder = () => join(root, "specs", "1_task");
const write = (rel: string, text: string) => {
  mkdirSync(join(root, rel, ".."), { recursive: true });
  writeFileSync(join(root, rel), text);
};
const show = (rel: string) => git(root, ["show", `HEAD:${rel}`]);
const committedPaths = () =>
  git(root, ["show", "--name-only", "--format=", "HEAD"]).trim().split("\n").sort();

beforeEach(() => {
  repo = tempGitRepo("baton-commit-");
  root = repo.dir;
  write("specs/state.json", "{}\n");
  write("specs/TODO.md", "# TODO\n");
  write("src/app.js", "old\n");
  write("specs/1_task/old.md", "kept\n");
  git(root, ["add", "-A"]);
  git(root, ["commit", "-qm", "base"]);
});
afterEach(() => repo.cleanup());

async function seenNow(paths: string[] = []) {
  const work = { paths: paths.map((p) => join(root, p)), taskFolder: folder() };
  const taken = await snapshotWork(root, workPathspecs(root, work));
  if (!taken.ok) throw new Error(taken.reason);
  return { work, seen: taken.snapshot };
}

describe("a Baton commit carries only Baton's bytes and the work as it was seen", () => {
  it("commits the store as Baton wrote it, whatever a background process wrote since, and names the file", async () => {
    write("specs/TODO.md", "# TODO\n- [RESEARCHED] task 1\n");
    const batonTodo = readFileSync(join(root, "specs/TODO.md"), "utf8");
    write("specs/TODO.md", "# TODO\n- [COMPLETED] task 1 (a background rewrite)\n");
    const result = await commitTaskChanges({
      root,
      subject: "task 1: complete research",
      sessionId: "sess_1700000000_abcdef",
      baton: [
        { path: join(root, "specs/TODO.md"), content: batonTodo },
        { path: join(root, "specs/state.json") },
      ],
      work: { paths: [], taskFolder: folder() },
    });
    expect(result).toMatchObject({ ok: true, committed: true, leftOut: ["specs/TODO.md"] });
    expect(show("specs/TODO.md")).toBe(batonTodo);
    // The foreign change is still there, and shown as the change it is.
    expect(readFileSync(join(root, "specs/TODO.md"), "utf8")).toContain("background rewrite");
    expect(git(root, ["status", "--porcelain"])).toBe(" M specs/TODO.md\n");
  });

  it("commits work files as GATE OUT saw them; later changes and new files are left out and named", async () => {
    write("specs/1_task/report.md", "the agent's report\n");
    write("src/app.js", "new by the agent\n");
    rmSync(join(root, "specs/1_task/old.md"));
    const { work, seen } = await seenNow(["src/app.js"]);
    write("specs/1_task/report.md", "rewritten by a daemon\n");
    write("specs/1_task/extra.md", "dropped in by a daemon\n");
    const result = await commitTaskChanges({
      root,
      subject: "task 1: complete implementation",
      sessionId: "sess_1700000000_abcdef",
      baton: [],
      work: { ...work, seen },
    });
    expect(result).toMatchObject({
      ok: true,
      committed: true,
      leftOut: ["specs/1_task/extra.md", "specs/1_task/report.md"],
    });
    expect(show("specs/1_task/report.md")).toBe("the agent's report\n");
    expect(show("src/app.js")).toBe("new by the agent\n");
    expect(committedPaths()).toEqual(["specs/1_task/old.md", "specs/1_task/report.md", "src/app.js"]);
    expect(git(root, ["status", "--porcelain"]).split("\n").filter(Boolean).sort()).toEqual([
      " M specs/1_task/report.md",
      "?? specs/1_task/extra.md",
    ]);
  });

  it("leaves what the user staged elsewhere staged and uncommitted, and runs none of the repository's hooks", async () => {
    write("notes.txt", "the user's staged note\n");
    git(root, ["add", "notes.txt"]);
    write(".git/hooks/pre-commit", '#!/bin/sh\necho ran >> "$(git rev-parse --git-dir)/hook-ran"\n');
    chmodSync(join(root, ".git/hooks/pre-commit"), 0o755);
    write("specs/1_task/report.md", "report\n");
    const result = await commitTaskChanges({
      root,
      subject: "task 1: complete research",
      sessionId: "sess_1700000000_abcdef",
      baton: [],
      work: { paths: [], taskFolder: folder() },
    });
    expect(result).toMatchObject({ ok: true, committed: true, leftOut: [] });
    expect(committedPaths()).toEqual(["specs/1_task/report.md"]);
    expect(git(root, ["status", "--porcelain"])).toBe("A  notes.txt\n");
    // A hook would run outside any sandbox and could change what Baton signed.
    expect(existsSync(join(root, ".git/hook-ran"))).toBe(false);
  });

  it("makes no commit when the seen work and Baton's files are what HEAD holds", async () => {
    const { work, seen } = await seenNow();
    const result = await commitTaskChanges({
      root,
      subject: "task 1: nothing",
      sessionId: "sess_1700000000_abcdef",
      baton: [{ path: join(root, "specs/state.json"), content: "{}\n" }],
      work: { ...work, seen },
    });
    expect(result).toEqual({ ok: true, committed: false, reason: "nothing to commit", leftOut: [] });
    expect(git(root, ["log", "--format=%s"]).trim()).toBe("base");
  });

  it("a hook that would fail the commit is not run: the commit holds what Baton checked", async () => {
    write(".git/hooks/pre-commit", "#!/bin/sh\necho 'lint failed' >&2\nexit 1\n");
    chmodSync(join(root, ".git/hooks/pre-commit"), 0o755);
    write("specs/1_task/report.md", "report\n");
    const result = await commitTaskChanges({
      root,
      subject: "task 1: complete research",
      sessionId: "sess_1700000000_abcdef",
      baton: [],
      work: { paths: [], taskFolder: folder() },
    });
    expect(result).toMatchObject({ ok: true, committed: true });
    expect(committedPaths()).toEqual(["specs/1_task/report.md"]);
  });
});

describe("a commit is Baton's by its seal", () => {
  it("recovery settles only on this session's sealed commits, never on a trailer typed by hand", async () => {
    const session = "sess_1700000000_abcdef";
    write("src/app.js", "forged\n");
    git(root, ["commit", "-qam", "task 1: complete research", "-m", `Session: ${session}`]);
    expect(await sessionCommitSubjects(root, session)).toEqual([]);
    write("src/app.js", "by Baton\n");
    const { work, seen } = await seenNow(["src/app.js"]);
    const result = await commitTaskChanges({
      root,
      subject: "task 1: complete research",
      sessionId: session,
      baton: [],
      work: { ...work, seen },
    });
    expect(result).toMatchObject({ ok: true, committed: true });
    expect(await sessionCommitSubjects(root, session)).toEqual(["task 1: complete research"]);
  });

  it("never moves HEAD past a commit that landed after its tree was read: a person's commit is kept", async () => {
    const head = git(root, ["rev-parse", "HEAD"]).trim();
    write("person.txt", "a person's file\n");
    git(root, ["add", "person.txt"]);
    git(root, ["commit", "-qm", "a person's commit"]);
    const personal = git(root, ["rev-parse", "HEAD"]).trim();
    const index = { GIT_INDEX_FILE: join(root, ".git", "baton-index-stale") };
    execFileSync("git", ["read-tree", head], { cwd: root, env: { ...process.env, ...index } });
    const made = await sealedCommit(
      root,
      index,
      "task 1: done\n\nSession: sess_1700000000_abcdef\n",
      [head],
      head,
    );
    expect(made).toMatchObject({ ok: false, moved: true });
    expect(git(root, ["rev-parse", "HEAD"]).trim()).toBe(personal);
  });
});
