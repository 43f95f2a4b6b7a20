import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { commitFiles, recoverInterruptedCommit } from "./journal.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "baton-journal-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("multi-file commit", () => {
  it("writes every file and moves folders, leaving no journal or temp files", async () => {
    writeFileSync(join(dir, "a"), "old a");
    mkdirSync(join(dir, "task"));
    await commitFiles(
      join(dir, "journal.json"),
      [
        { path: join(dir, "a"), content: "new a" },
        { path: join(dir, "b"), content: "new b" },
      ],
      [{ from: join(dir, "task"), to: join(dir, "archive", "task") }],
    );
    expect(readFileSync(join(dir, "a"), "utf8")).toBe("new a");
    expect(readFileSync(join(dir, "b"), "utf8")).toBe("new b");
    expect(existsSync(join(dir, "archive", "task"))).toBe(true);
    expect(existsSync(join(dir, "journal.json"))).toBe(false);
    expect(readFileSync(join(dir, "a"), "utf8")).toBe("new a");
  });

  it("rolls an interrupted commit forward", () => {
    writeFileSync(join(dir, "state.json"), "old state");
    writeFileSync(join(dir, "TODO.md"), "new todo");
    writeFileSync(join(dir, ".state.json.baton-1-00000000.tmp"), "new state");
    mkdirSync(join(dir, "5_task"));
    // The crash came after TODO.md's rename and before state.json's and the folder move.
    writeFileSync(
      join(dir, "journal.json"),
      JSON.stringify({
        version: 1,
        created: "x",
        writes: [
          { path: join(dir, "TODO.md"), temp: join(dir, ".TODO.md.baton-1-11111111.tmp") },
          { path: join(dir, "state.json"), temp: join(dir, ".state.json.baton-1-00000000.tmp") },
        ],
        moves: [{ from: join(dir, "5_task"), to: join(dir, "archive", "5_task") }],
      }),
    );
    expect(recoverInterruptedCommit(join(dir, "journal.json"), [dir])).toBe(true);
    expect(readFileSync(join(dir, "state.json"), "utf8")).toBe("new state");
    expect(readFileSync(join(dir, "TODO.md"), "utf8")).toBe("new todo");
    expect(existsSync(join(dir, "archive", "5_task"))).toBe(true);
    expect(existsSync(join(dir, "journal.json"))).toBe(false);
  });

  it("discards temp files of a write that crashed before its journal", () => {
    writeFileSync(join(dir, "state.json"), "old");
    writeFileSync(join(dir, ".state.json.baton-77-abcdef01.tmp"), "half written");
    expect(recoverInterruptedCommit(join(dir, "journal.json"), [dir])).toBe(false);
    expect(readFileSync(join(dir, "state.json"), "utf8")).toBe("old");
    expect(existsSync(join(dir, ".state.json.baton-77-abcdef01.tmp"))).toBe(false);
  });
});

describe("temp files outside the scanned folders", () => {
  it("are named before they are written, so a kill before the journal leaves none behind", async () => {
    mkdirSync(join(dir, "5_task", "evidence"), { recursive: true });
    const journal = join(dir, "journal.json");
    // The kill came after the temps and before the journal: only the list names them.
    const temp = join(dir, "5_task", "evidence", ".s.json.baton-9-0badf00d.tmp");
    writeFileSync(temp, "half");
    writeFileSync(`${journal}.temps`, JSON.stringify([temp]));
    expect(recoverInterruptedCommit(journal, [dir])).toBe(false);
    expect(existsSync(temp)).toBe(false);
    expect(existsSync(`${journal}.temps`)).toBe(false);
    // A commit that completes leaves neither list nor temps.
    await commitFiles(
      journal,
      [
        { path: join(dir, "5_task", "evidence", "s.json"), content: "{}" },
        { path: join(dir, "a"), content: "a" },
      ],
      [],
    );
    expect(readdirSync(join(dir, "5_task", "evidence"))).toEqual(["s.json"]);
    expect(existsSync(`${journal}.temps`)).toBe(false);
  });
});

describe("symlinked files", () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "baton-links-"));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it("writes through a link, which stays a link, and refuses a dangling one writing nothing", async () => {
    mkdirSync(join(root, "specs"));
    mkdirSync(join(root, "kept"));
    writeFileSync(join(root, "kept", "state.json"), "old");
    symlinkSync("../kept/state.json", join(root, "specs", "state.json"));
    symlinkSync("../kept/gone.md", join(root, "specs", "TODO.md"));
    const journal = join(root, "specs", "journal.json");
    await commitFiles(journal, [{ path: join(root, "specs", "state.json"), content: "new" }], []);
    expect(lstatSync(join(root, "specs", "state.json")).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(root, "kept", "state.json"), "utf8")).toBe("new");
    await expect(
      commitFiles(
        journal,
        [
          { path: join(root, "specs", "state.json"), content: "newer" },
          { path: join(root, "specs", "TODO.md"), content: "todo" },
        ],
        [],
      ),
    ).rejects.toThrow(/TODO\.md is a symbolic link to \.\.\/kept\/gone\.md, which does not exist/);
    expect(readFileSync(join(root, "kept", "state.json"), "utf8")).toBe("new");
    expect(lstatSync(join(root, "specs", "TODO.md")).isSymbolicLink()).toBe(true);
    expect(readdirSync(join(root, "kept")).sort()).toEqual(["state.json"]);
  });
});
