import { execFileSync, spawnSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, describe, expect, it, onTestFinished } from "vitest";
import { readAllEvents } from "../../src/shared/event-stream.js";
import { requireUnderCi } from "../../src/testing/requirements.js";
import { BATON_BIN } from "../support/cli.js";
import {
  agentStarted,
  GOOD_RESEARCH,
  git,
  ok,
  repo,
  runBaton,
  runBatonAsync,
  specs,
  startedResearcher,
} from "./helpers.js";

/**
 * The machine failing under Baton: a full disk, a focus too long for any command line, a store corrupted
 * while an agent works. Each ends in a clear refusal that names the file and the operation, and leaves
 * every file as it was: no half-written store, no temp or control file behind, once recovery ran.
 */

/** Every temp file of an atomic write, and every control file, under `dir` (repository-relative). */
function leftovers(dir: string): string[] {
  const found: string[] = [];
  const walk = (at: string) => {
    for (const name of readdirSync(at)) {
      const path = join(at, name);
      if (name === ".git") continue;
      if (statSync(path).isDirectory()) walk(path);
      else if (
        /\.baton-\d+-[0-9a-f]+\.tmp$|\.temps$|^\.return-meta|^\.postflight|^lock$|^journal\.json$/.test(name)
      )
        found.push(relative(dir, path));
    }
  };
  walk(dir);
  const checkpoints = specs(dir, ".baton", "checkpoints");
  if (existsSync(checkpoints)) for (const c of readdirSync(checkpoints)) found.push(`checkpoint ${c}`);
  return found.sort();
}

function oneTask(dir: string): void {
  ok(dir, ["task", "add", "Study the lexer", "-l", "general"]);
  git(dir, ["add", "-A"]);
  git(dir, ["commit", "-qm", "tasks"]);
}

const isRoot = process.getuid?.() === 0;

/** A small tmpfs of its own (root only), removed after the file's tests. */
function smallDisk(): string | null {
  if (!isRoot) return null;
  const mount = mkdtempSync(join(tmpdir(), "baton-small-disk-"));
  const mounted = spawnSync("mount", ["-t", "tmpfs", "-o", "size=2m", "tmpfs", mount]);
  if (mounted.status !== 0) {
    rmSync(mount, { recursive: true, force: true });
    return null;
  }
  afterAll(() => {
    spawnSync("umount", ["-l", mount]);
    rmSync(mount, { recursive: true, force: true });
  });
  return mount;
}

/** Fills the file system holding `dir` to the last block. */
function fill(dir: string): void {
  spawnSync("dd", ["if=/dev/zero", `of=${join(dir, "filler")}`, "bs=4k"], { stdio: "ignore" });
  for (let i = 0; i < 64; i++) {
    try {
      writeFileSync(join(dir, `filler-${i}`), "x".repeat(512));
    } catch {
      break;
    }
  }
}

const disk = smallDisk();

describe.skipIf(disk === null)("a full disk (a small tmpfs; needs root)", () => {
  function repoOnDisk(name: string): string {
    const dir = join(disk!, name);
    mkdirSync(dir);
    execFileSync("git", ["init", "-q", "-b", "main"], { cwd: dir });
    git(dir, ["config", "user.email", "t@example.com"]);
    git(dir, ["config", "user.name", "T"]);
    oneTask(dir);
    return dir;
  }

  for (const [what, args] of [
    ["task add", ["task", "add", "Another task with a long description", "-d", "words ".repeat(400)]],
    ["research", ["research", "1"]],
  ] as const) {
    it(`${what} ends in IO_FAILURE naming the path; every file stays as it was`, () => {
      const dir = repoOnDisk(what.replace(" ", "-"));
      const script = startedResearcher(dir);
      const state = readFileSync(specs(dir, "state.json"));
      const todo = readFileSync(specs(dir, "TODO.md"));
      fill(join(dir, ".git"));
      onTestFinished(() => {
        for (const f of readdirSync(join(dir, ".git")))
          if (f.startsWith("filler")) rmSync(join(dir, ".git", f));
      });
      const result = runBaton(dir, [...args, ...(what === "research" ? ["--script", script] : [])]);
      const output = result.stdout + result.stderr;
      expect(result.status, output).toBe(1);
      expect(output).not.toContain("unexpected failure");
      expect(output).toContain("IO_FAILURE");
      expect(output).toMatch(/no space left on the device \(ENOSPC\)/);
      expect(output).toMatch(new RegExp(`${disk}/`));
      expect(readFileSync(specs(dir, "state.json")).equals(state)).toBe(true);
      expect(readFileSync(specs(dir, "TODO.md")).equals(todo)).toBe(true);
      for (const f of readdirSync(join(dir, ".git")))
        if (f.startsWith("filler")) rmSync(join(dir, ".git", f));
      runBaton(dir, ["recover"]);
      expect(leftovers(dir)).toEqual([]);
    });
  }
});

describe("a focus too long for a command line", () => {
  for (const size of [200 * 1024, 1024 * 1024]) {
    it(`a ${size / 1024} KiB focus is refused at GATE IN, before any agent runs`, () => {
      const dir = repo();
      oneTask(dir);
      // As a shell passes a long text: many words, none over the kernel's limit for one argument.
      const words = Array.from({ length: size / 1024 }, () => "x".repeat(1023));
      const refused = runBaton(dir, ["research", "1", ...words, "--script", startedResearcher(dir)]);
      expect(refused.status, refused.stderr.slice(0, 2000)).toBe(1);
      expect(refused.stdout).toContain("GATE_IN");
      expect(refused.stdout).toMatch(/the focus is \d+ bytes, over the limit of 65536/);
      expect(existsSync(specs(dir, "1_study_the_lexer"))).toBe(false);
      expect(leftovers(dir)).toEqual([]);
    });
  }

  it("a 60 KiB focus reaches the agent whole", () => {
    const dir = repo();
    oneTask(dir);
    const focus = `${"look at the lexer ".repeat(3400)}END`;
    const path = join(dir, ".git", "agent.json");
    writeFileSync(
      path,
      JSON.stringify({
        steps: [{ write: "{task_folder}/prompt.txt", content: "{prompt}" }, ...GOOD_RESEARCH],
      }),
    );
    ok(dir, ["research", "1", focus, "--script", path]);
    expect(readFileSync(specs(dir, "1_study_the_lexer", "prompt.txt"), "utf8")).toContain(focus);
  });
});

describe("a store corrupted while the agent works", () => {
  it("the run stops naming the file; once it is fixed, recover leaves no control file behind", async () => {
    const dir = repo();
    oneTask(dir);
    const running = runBatonAsync(dir, ["research", "1", "--script", startedResearcher(dir, 1500)]);
    await agentStarted(dir, "1_study_the_lexer");
    const good = readFileSync(specs(dir, "state.json"), "utf8");
    writeFileSync(specs(dir, "state.json"), `${good.slice(0, good.length / 2)}`);
    const result = await running;
    expect(result.status, result.stdout + result.stderr).not.toBe(0);
    expect(result.stdout + result.stderr).not.toContain("unexpected failure");
    expect(result.stdout + result.stderr).toContain("state.json");
    expect(existsSync(specs(dir, ".baton", "lock")), "lock left").toBe(false);
    writeFileSync(specs(dir, "state.json"), good);
    const recovered = runBaton(dir, ["recover"]);
    expect(recovered.status, recovered.stdout + recovered.stderr).toBe(0);
    expect(leftovers(dir)).toEqual([]);
    ok(dir, ["research", "1", "--script", startedResearcher(dir)]);
  });
});

const FAKETIME = "/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1";
const faketimeMissing = existsSync(FAKETIME) ? null : `${FAKETIME} is not installed`;
requireUnderCi("libfaketime (Debian package libfaketime)", faketimeMissing);

describe.skipIf(faketimeMissing !== null)("the wall clock steps back two hours mid-run (libfaketime)", () => {
  it("durations come from the monotonic clock: status, the event stream and the live progress never go negative", async () => {
    const dir = repo();
    oneTask(dir);
    const clock = join(dir, ".git", "faketime");
    writeFileSync(clock, "+0\n");
    const env = {
      LD_PRELOAD: FAKETIME,
      FAKETIME_TIMESTAMP_FILE: clock,
      FAKETIME_NO_CACHE: "1",
      DONT_FAKE_MONOTONIC: "1",
    };
    // Sandboxed: libfaketime, preloaded into bubblewrap and the agent, fails to set itself up in a sandbox
    // without /dev; the probe once read that as "no sandbox here" and refused every operation.
    const args = ["research", "1", "--script", startedResearcher(dir, 2500)];
    const running = runBatonAsync(dir, args, env);
    await agentStarted(dir, "1_study_the_lexer");
    writeFileSync(clock, "-2h\n");
    await new Promise((r) => setTimeout(r, 600));
    const status = JSON.parse(runBaton(dir, ["status", "--json"], env).stdout);
    expect(status.running).toHaveLength(1);
    expect(status.running[0].elapsedMs).toBeGreaterThan(400);
    expect(status.running[0].elapsedMs).toBeLessThan(60_000);
    const result = await running;
    expect(result.status, result.stdout + result.stderr).toBe(0);
    // The live progress stamps every line with the time since the run began: never negative, never hours.
    const stamps = (result.stdout + result.stderr).split("\n").filter((l) => l.startsWith("["));
    expect(stamps.length).toBeGreaterThan(3);
    for (const line of stamps) expect(line).toMatch(/^\[00:0\d\] /);
    const operation = readAllEvents(dir).find((e) => e.kind === "operation" && e.durationMs !== undefined);
    expect(operation?.durationMs).toBeGreaterThan(2000);
    expect(operation?.durationMs).toBeLessThan(60_000);
    expect(runBaton(dir, ["status"], env).stdout).not.toMatch(/-\d+s|-\d+m/);
  });
});

describe("temp files of writes killed in Baton's own folder", () => {
  it("recover removes a dead writer's temp files under specs/.baton (the journal's among them), never a live one's", () => {
    const dir = repo();
    oneTask(dir);
    ok(dir, ["task", "add", "Second"]);
    const dead = 2 ** 22 + 12345;
    const internal = specs(dir, ".baton");
    mkdirSync(join(internal, "checkpoints"), { recursive: true });
    const left = [
      join(internal, `.journal.json.baton-${dead}-0badf00d.tmp`),
      join(internal, "checkpoints", `.1.json.baton-${dead}-0badf00d.tmp`),
      join(internal, "seal", `.manifest.json.baton-${dead}-0badf00d.tmp`),
    ];
    const live = join(internal, `.journal.json.baton-${process.pid}-0badf00d.tmp`);
    for (const path of [...left, live]) writeFileSync(path, "{");
    const recovered = runBaton(dir, ["recover"]);
    expect(recovered.status, recovered.stderr).toBe(0);
    for (const path of left) expect(existsSync(path), path).toBe(false);
    expect(existsSync(live), "a live writer's temp file was removed").toBe(true);
    rmSync(live);
    expect(leftovers(dir)).toEqual([]);
  });
});

describe("file modes under a strict umask", () => {
  it("a store write keeps each file's own mode (0644 stays 0644, a person's 0664 stays 0664)", () => {
    const dir = repo();
    oneTask(dir);
    chmodSync(specs(dir, "TODO.md"), 0o664);
    const strict = (args: string[]) =>
      spawnSync("sh", ["-c", 'umask 077; exec "$0" "$@"', process.execPath, BATON_BIN, ...args], {
        cwd: dir,
        encoding: "utf8",
      });
    for (const args of [
      ["task", "add", "Another"],
      ["task", "status", "1", "blocked", "--reason", "waits"],
    ]) {
      const result = strict(args);
      expect(result.status, result.stderr).toBe(0);
    }
    expect(statSync(specs(dir, "state.json")).mode & 0o777).toBe(0o644);
    expect(statSync(specs(dir, "TODO.md")).mode & 0o777).toBe(0o664);
  });
});
