import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { fails, ok, repo } from "./helpers.js";

/** Commands that read or run tasks: none may answer "no tasks" or "all invariants hold" about nothing. */
const READS = [
  ["doctor"],
  ["verify"],
  ["status"],
  ["task", "list"],
  ["task", "show", "1"],
  ["plan", "show", "1"],
  ["errors"],
  ["ui", "--port", "0"],
];
/** Writes that need a store: none may create one as a side effect ("No tasks to archive" in a wrong folder). */
const WRITES = [
  ["archive"],
  ["recover"],
  ["adopt"],
  ["doctor", "--fix"],
  ["task", "status", "1", "blocked", "-r", "x"],
  ["task", "abandon", "1"],
];

let cleanup = () => {};
afterEach(() => cleanup());

/** Every path under `dir` (`.git` internals excluded), to prove a command created nothing. */
function tree(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((p) => !p.startsWith(".git/") && p !== ".git")
    .sort();
}

describe("no success on nothing", () => {
  it("outside any repository every read and operation exits 3 with what to do, and creates nothing", () => {
    const dir = mkdtempSync(join(tmpdir(), "baton-nowhere-"));
    cleanup = () => rmSync(dir, { recursive: true, force: true });
    for (const args of [...READS, ...WRITES, ["research", "1"], ["task", "add", "Somewhere"]]) {
      const result = fails(dir, args, 3);
      expect(result.stderr, args.join(" ")).toMatch(/no task store in|is not inside a git repository/);
      expect(result.stderr).not.toContain("unexpected failure");
    }
    expect(fails(dir, ["verify"], 3).stderr).toContain("is not inside a git repository");
    expect(fails(dir, ["task", "add", "Somewhere"], 3).stderr).toContain("git init");
    expect(readdirSync(dir)).toEqual([]);
  });

  it("in a repository without specs/ reads say there is no store and create nothing; add starts one at the root", () => {
    const dir = repo();
    const nested = join(dir, "src", "deep");
    mkdirSync(nested, { recursive: true });
    const before = tree(dir);
    for (const args of [...READS, ...WRITES]) {
      const result = fails(nested, args, 3);
      expect(result.stderr, args.join(" ")).toContain(`no task store in ${dir}`);
      expect(result.stderr).toContain('baton task add "<title>"');
    }
    expect(tree(dir)).toEqual(before);
    const added = ok(nested, ["task", "add", "First task"]);
    expect(added.stderr).toContain(`started a task store in ${join(dir, "specs")}`);
    expect(existsSync(join(dir, "specs", "state.json"))).toBe(true);
    expect(existsSync(join(nested, "specs"))).toBe(false);
    // Found again by walking up, from any depth.
    expect(ok(nested, ["task", "list"]).stdout).toContain("First task");
    expect(ok(join(dir, "src"), ["doctor"]).stdout).toContain("All invariants hold");
  });
});

describe("one exit code per kind of outcome", () => {
  it("no such task exits 3 from every command that names one; bad usage 2; a refusal 1", () => {
    const dir = repo();
    ok(dir, ["task", "add", "Only task"]);
    ok(dir, ["task", "add", "Second task"]);
    execFileSync("git", ["add", "-A"], { cwd: dir });
    for (const args of [
      ["task", "show", "99"],
      ["task", "status", "99", "blocked", "-r", "x"],
      ["task", "edit", "99", "--title", "x"],
      ["task", "abandon", "99"],
      ["plan", "show", "99"],
      ["research", "99", "--dry-run"],
      ["implement", "99", "--dry-run"],
    ]) {
      expect(fails(dir, args, 3).stderr, args.join(" ")).toMatch(/task 99 (does not exist|not found)/);
    }
    ok(dir, ["task", "abandon", "1"]);
    expect(fails(dir, ["task", "show", "1"], 3).stderr).toContain("task 1 is archived");
    fails(dir, ["task", "show", "one"], 2);
    fails(dir, ["task", "status", "2", "researched"], 1);
  });
});
