import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { changedSince, readBaseline, staleIndexLock } from "./work-tree-baseline.js";

let dir = "";
afterEach(() => {
  vi.unstubAllEnvs();
  rmSync(dir, { recursive: true, force: true });
});

function repoWith(files: Record<string, string>): string {
  dir = mkdtempSync(join(tmpdir(), "baton-baseline-"));
  const git = (...args: string[]) => execFileSync("git", args, { cwd: dir });
  git("init", "-q");
  for (const [path, content] of Object.entries(files)) write(path, content);
  git("add", "-A");
  git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "base");
  return dir;
}

function write(path: string, content: string): void {
  mkdirSync(join(dir, path, ".."), { recursive: true });
  writeFileSync(join(dir, path), content);
}

const noStore = (path: string) => path.startsWith("specs/");

describe("diff evidence since a baseline", () => {
  it("counts new, changed, deleted and committed files, never the store, nor a dirty file left as it was", async () => {
    repoWith({ "a.txt": "a\n", "b.txt": "b\n", "c.txt": "c\n", "specs/state.json": "{}\n" });
    write("wip.txt", "a person's edit\n");
    write("a.txt", "a, being edited\n");
    const baseline = (await readBaseline(dir))!;
    expect(Object.keys(baseline.dirty).sort()).toEqual(["a.txt", "wip.txt"]);
    expect(await changedSince(dir, baseline, noStore)).toEqual([]);

    write("b.txt", "b2\n");
    write("new/d.txt", "d\n");
    rmSync(join(dir, "c.txt"));
    write("specs/state.json", '{"x":1}\n');
    expect(await changedSince(dir, baseline, noStore)).toEqual(["b.txt", "c.txt", "new/d.txt"]);

    // The dirty file moved on from how the baseline found it: now it counts.
    write("wip.txt", "the agent's edit\n");
    expect(await changedSince(dir, baseline, noStore)).toContain("wip.txt");
    // Work the agent committed itself still counts; a change reverted does not.
    execFileSync("git", ["add", "b.txt"], { cwd: dir });
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "agent"], {
      cwd: dir,
    });
    write("new/d.txt", "");
    rmSync(join(dir, "new/d.txt"));
    expect(await changedSince(dir, baseline, noStore)).toEqual(["b.txt", "c.txt", "wip.txt"]);
  });

  it("finds a stale index.lock", async () => {
    // A lock is stale once it outlives the wait (10 s by default); the test's wait is short.
    vi.stubEnv("BATON_GIT_LOCK_WAIT_MS", "300");
    repoWith({ "a.txt": "a\n" });
    expect(await staleIndexLock(dir)).toBeNull();
    writeFileSync(join(dir, ".git", "index.lock"), "");
    expect(await staleIndexLock(dir)).toBe(join(dir, ".git", "index.lock"));
  });

  it("has no baseline outside git", async () => {
    dir = mkdtempSync(join(tmpdir(), "baton-baseline-"));
    expect(await readBaseline(dir)).toBeNull();
  });
});
