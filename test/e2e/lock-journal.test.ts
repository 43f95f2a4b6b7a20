import { spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  activeTasks,
  archivedEntries,
  expectSpecsUnchanged,
  fails,
  generatedRepo,
  nextNumbers,
  ok,
  okJson,
  read,
  repo,
  runAll,
  runBaton,
  runBatonAsync,
  snapshotSpecs,
  specs,
  todoNumbers,
  write,
} from "./helpers.js";

function deadPid(): number {
  const child = spawnSync(process.execPath, ["-e", ""]);
  return child.pid!;
}

function writeLock(dir: string, holder: Record<string, unknown>): string {
  const content = JSON.stringify({
    command: 'baton task add "x"',
    acquiredAt: "2026-03-16T10:00:00.000Z",
    ...holder,
  });
  mkdirSync(specs(dir, ".baton"), { recursive: true });
  writeFileSync(specs(dir, ".baton", "lock"), content);
  return content;
}

describe("the specs lock", () => {
  it("breaks a lock left by a dead process on this host, and the command succeeds", () => {
    const dir = repo();
    ok(dir, ["task", "add", "First", "-l", "general"]);
    const pid = deadPid();
    writeLock(dir, { pid, hostname: hostname() });

    const doctor = JSON.parse(runBaton(dir, ["doctor", "--json"]).stdout);
    expect(doctor.findings).toEqual([
      expect.objectContaining({
        code: "STALE_LOCK",
        severity: "warning",
        message: `lock held by pid ${pid} ("baton task add "x""), which is no longer running`,
      }),
    ]);

    expect(okJson(dir, ["task", "add", "Second", "-l", "general"]).number).toBe(2);
    // No lock, breaker or journal is left behind (the format hint is Baton's cache, not a leftover).
    expect(readdirSync(specs(dir, ".baton")).filter((f) => /lock|journal/.test(f))).toEqual([]);
    expect(todoNumbers(dir)).toEqual([2, 1]);
  });

  it("doctor --fix removes a stale lock", () => {
    const dir = repo();
    ok(dir, ["task", "add", "First", "-l", "general"]);
    writeLock(dir, { pid: deadPid(), hostname: hostname() });
    ok(dir, ["doctor", "--fix"]);
    expect(existsSync(specs(dir, ".baton", "lock"))).toBe(false);
  });

  it("waits for a live holder, then fails naming its pid and command, writing nothing", async () => {
    const dir = repo();
    ok(dir, ["task", "add", "First", "-l", "general"]);
    writeFileSync(join(dir, "baton.config.json"), '{ "lockTimeoutMs": 300 }\n');
    const lock = writeLock(dir, { pid: process.pid, hostname: hostname(), command: "baton archive" });
    const before = snapshotSpecs(dir);

    const started = Date.now();
    const [result, status] = await runAll(dir, [
      ["task", "add", "Blocked by the lock"],
      ["task", "status", "1", "blocked", "-r", "x"],
    ]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    expect([result!.status, status!.status]).toEqual([1, 1]);
    expect(result!.stderr).toContain(`timed out after 300 ms waiting for ${specs(dir, ".baton", "lock")}`);
    expect(result!.stderr).toContain(
      `held by pid ${process.pid} on ${hostname()} ("baton archive", since 2026-03-16T10:00:00.000Z)`,
    );
    expect(status!.stderr).toContain(`pid ${process.pid}`);

    // The holder's lock is untouched and no other file changed.
    expect(readFileSync(specs(dir, ".baton", "lock"), "utf8")).toBe(lock);
    const after = snapshotSpecs(dir);
    expect([...after.keys()]).toEqual([...before.keys()]);
    for (const [path, bytes] of before) expect(after.get(path)!.equals(bytes), path).toBe(true);
    // Reading needs no lock.
    expect(okJson(dir, ["task", "list"]).map((t: { number: number }) => t.number)).toEqual([1]);
  });

  it("breaks an empty lock file (a holder that died before writing itself) once it is old", () => {
    const dir = repo();
    ok(dir, ["task", "add", "First", "-l", "general"]);
    writeFileSync(specs(dir, ".baton", "lock"), "");
    const old = new Date(Date.now() - 60_000);
    utimesSync(specs(dir, ".baton", "lock"), old, old);
    expect(okJson(dir, ["task", "add", "Second", "-l", "general"]).number).toBe(2);
    expect(existsSync(specs(dir, ".baton", "lock"))).toBe(false);
  });

  it("never breaks a lock held on another host, even with a pid that is dead here", () => {
    const dir = repo();
    ok(dir, ["task", "add", "First", "-l", "general"]);
    writeFileSync(join(dir, "baton.config.json"), '{ "lockTimeoutMs": 200 }\n');
    writeLock(dir, { pid: deadPid(), hostname: `${hostname()}-elsewhere` });
    expect(fails(dir, ["task", "add", "Second"], 1).stderr).toContain(`on ${hostname()}-elsewhere`);
    expect(existsSync(specs(dir, ".baton", "lock"))).toBe(true);
  });
});

describe("concurrency", () => {
  it("8 parallel task add processes get 8 distinct numbers and leave both files in agreement", async () => {
    const dir = repo();
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        runBatonAsync(dir, ["task", "add", `Parallel task ${i}`, "-l", "general", "--json"]),
      ),
    );
    // Exactly one of them started the store, and says so.
    const notes = results.map((r) => r.stderr).filter((e) => e !== "");
    expect(notes).toEqual([`baton: note: started a task store in ${join(dir, "specs")}\n`]);
    expect(results.map((r) => r.status)).toEqual(Array(8).fill(0));
    const numbers = results.map((r) => JSON.parse(r.stdout).number as number).sort((a, b) => a - b);
    expect(numbers).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(
      activeTasks(dir)
        .map((t) => t.project_number)
        .sort((a, b) => a - b),
    ).toEqual(numbers);
    expect(todoNumbers(dir).sort((a, b) => a - b)).toEqual(numbers);
    expect(nextNumbers(dir)).toEqual({ state: 9, todo: 9 });
    // Each title went with its own number.
    for (const r of results) {
      const view = JSON.parse(r.stdout);
      expect(read(dir, "TODO.md")).toContain(`### ${view.number}. ${view.title}\n`);
    }
    expect(ok(dir, ["doctor"]).stdout.split("\n")[0]).toBe(
      "All invariants hold: state.json and TODO.md agree.",
    );
    expect(readdirSync(specs(dir)).filter((n) => n.endsWith(".tmp"))).toEqual([]);
  });

  it("parallel status changes on different tasks all land (no lost update)", async () => {
    // Six tasks whose statuses (not_started … implementing) may all move to blocked.
    const { dir } = generatedRepo({ active: 6, archived: 0, folders: true });
    const results = await Promise.all(
      [1, 2, 3, 4, 5, 6].map((n) =>
        runBatonAsync(dir, ["task", "status", String(n), "blocked", "-r", `reason ${n}`]),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(6).fill(0));
    for (const t of activeTasks(dir)) {
      expect(t.status).toBe("blocked");
      expect(t.blocked_reason).toBe(`reason ${t.project_number}`);
    }
    expect((read(dir, "TODO.md").match(/- \*\*Status\*\*: \[BLOCKED\]/g) ?? []).length).toBe(6);
    expect(ok(dir, ["doctor"]).status).toBe(0);
  });
});

describe("an interrupted commit", () => {
  /**
   * Builds the state a crash leaves in the middle of `baton task abandon 1` (folder moved, state.json
   * renamed, TODO.md and archive/state.json still staged): the staged contents come from running the
   * real abandon in a copy of the repository.
   */
  function crashedAbandon() {
    const dir = repo();
    ok(dir, ["task", "add", "Doomed", "-l", "general"]);
    ok(dir, ["task", "add", "Survivor", "-l", "general"]);
    write(dir, "1_doomed/reports/research-001.md", "# findings\n");
    const copy = repo();
    cpSync(specs(dir), specs(copy), { recursive: true });
    ok(copy, ["task", "abandon", "1"]);
    const target = {
      state: read(copy, "state.json"),
      todo: read(copy, "TODO.md"),
      archive: read(copy, "archive", "state.json"),
    };

    const staged = (name: string) =>
      join(specs(dir), ...name.split("/").slice(0, -1), `.${name.split("/").pop()}.baton-4242-0123abcd.tmp`);
    const journal = {
      version: 1,
      created: "2026-03-16T10:00:00.000Z",
      writes: [
        { path: specs(dir, "state.json"), temp: staged("state.json") },
        { path: specs(dir, "TODO.md"), temp: staged("TODO.md") },
        { path: specs(dir, "archive", "state.json"), temp: staged("archive/state.json") },
      ],
      moves: [{ from: specs(dir, "1_doomed"), to: specs(dir, "archive", "1_doomed") }],
    };
    mkdirSync(specs(dir, "archive"), { recursive: true });
    renameSync(specs(dir, "1_doomed"), specs(dir, "archive", "1_doomed"));
    writeFileSync(specs(dir, "state.json"), target.state);
    writeFileSync(staged("TODO.md"), target.todo);
    writeFileSync(staged("archive/state.json"), target.archive);
    // A temp file from a write that never reached the journal.
    writeFileSync(join(specs(dir), ".state.json.baton-4242-deadbeef.tmp"), "garbage");
    writeFileSync(specs(dir, ".baton", "journal.json"), JSON.stringify(journal));
    // The seal is written in the same journaled commit; this crash came after its part had landed.
    cpSync(specs(copy, ".baton", "seal"), specs(dir, ".baton", "seal"), { recursive: true });
    return { dir, target };
  }

  it("doctor reports it without writing", () => {
    const { dir } = crashedAbandon();
    const before = snapshotSpecs(dir);
    const result = runBaton(dir, ["doctor", "--json"]);
    expect(result.status).toBe(1);
    expect(JSON.parse(result.stdout).findings.map((f: { code: string }) => f.code)).toContain(
      "INTERRUPTED_COMMIT",
    );
    expect(existsSync(specs(dir, ".baton", "journal.json"))).toBe(true);
    const after = snapshotSpecs(dir);
    expect([...after.keys()]).toEqual([...before.keys()]);
    for (const [path, bytes] of before) expect(after.get(path)!.equals(bytes), path).toBe(true);
  });

  it("a read rolls it forward first, so it never shows a half-written store", () => {
    const { dir, target } = crashedAbandon();
    const listed = okJson<Array<{ number: number; status: string }>>(dir, ["task", "list", "--json"]);
    expect(listed.map((t) => [t.number, t.status])).toEqual([[2, "not_started"]]);
    expect(existsSync(specs(dir, ".baton", "journal.json"))).toBe(false);
    expect(read(dir, "TODO.md")).toBe(target.todo);
    expect(read(dir, "archive", "state.json")).toBe(target.archive);
  });

  it("the next mutation rolls it forward before doing its own work", () => {
    const { dir, target } = crashedAbandon();
    ok(dir, ["task", "status", "2", "blocked", "-r", "after the crash"]);

    expect(existsSync(specs(dir, ".baton", "journal.json"))).toBe(false);
    expect(readdirSync(specs(dir)).filter((n) => n.endsWith(".tmp"))).toEqual([]);
    expect(readdirSync(specs(dir, "archive")).filter((n) => n.endsWith(".tmp"))).toEqual([]);
    expect(read(dir, "archive", "state.json")).toBe(target.archive);
    expect(read(dir, "TODO.md")).toBe(
      target.todo
        .replace("- **Status**: [NOT STARTED]", "- **Status**: [BLOCKED]")
        .replace("- **Language**: general\n", "- **Language**: general\n- **Blocked on**: after the crash\n"),
    );
    expect(activeTasks(dir).map((t) => [t.project_number, t.status])).toEqual([[2, "blocked"]]);
    expect(archivedEntries(dir).map((e) => [e.project_number, e.status])).toEqual([[1, "abandoned"]]);
    expect(read(dir, "archive", "1_doomed", "reports", "research-001.md")).toBe("# findings\n");
    expect(ok(dir, ["doctor"]).stdout.split("\n")[0]).toBe(
      "All invariants hold: state.json and TODO.md agree.",
    );
  });

  it("a journal whose writes all landed is simply cleared", () => {
    const dir = repo();
    ok(dir, ["task", "add", "One", "-l", "general"]);
    const journal = {
      version: 1,
      created: "x",
      writes: [{ path: specs(dir, "state.json"), temp: specs(dir, ".state.json.baton-1-00000000.tmp") }],
      moves: [],
    };
    writeFileSync(specs(dir, ".baton", "journal.json"), JSON.stringify(journal));
    const before = snapshotSpecs(dir);
    ok(dir, ["doctor", "--fix"]);
    expect(existsSync(specs(dir, ".baton", "journal.json"))).toBe(false);
    expectSpecsUnchanged(dir, before);
  });
});
