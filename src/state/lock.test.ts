import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LockTimeoutError } from "../shared/index.js";
import { acquireLock, processStarted } from "./lock.js";
import { isCheckpointProcessAlive } from "./open-checkpoint.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "baton-lock-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function deadPid(): number {
  const child = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], {
    encoding: "utf8",
  });
  return Number(child.stdout);
}

describe("specs lock", () => {
  it("is exclusive and released", async () => {
    const lock = join(dir, ".baton", "lock");
    const release = await acquireLock(lock, { timeoutMs: 1000, command: "first" });
    expect(JSON.parse(readFileSync(lock, "utf8"))).toMatchObject({ pid: process.pid, command: "first" });
    await expect(acquireLock(lock, { timeoutMs: 100, command: "second" })).rejects.toBeInstanceOf(
      LockTimeoutError,
    );
    release();
    const again = await acquireLock(lock, { timeoutMs: 100, command: "third" });
    again();
  });

  it("names the holder when waiting times out", async () => {
    const lock = join(dir, "lock");
    writeFileSync(
      lock,
      JSON.stringify({
        pid: process.pid,
        hostname: hostname(),
        command: "baton archive",
        acquiredAt: "2026-01-01T00:00:00Z",
      }),
    );
    await expect(acquireLock(lock, { timeoutMs: 150, command: "x" })).rejects.toThrow(
      `held by pid ${process.pid} on ${hostname()} ("baton archive", since 2026-01-01T00:00:00Z)`,
    );
  });

  it("breaks a lock whose holder is dead", async () => {
    const lock = join(dir, "lock");
    writeFileSync(
      lock,
      JSON.stringify({ pid: deadPid(), hostname: hostname(), command: "crashed", acquiredAt: "x" }),
    );
    const release = await acquireLock(lock, { timeoutMs: 500, command: "next" });
    expect(JSON.parse(readFileSync(lock, "utf8")).command).toBe("next");
    release();
  });

  it("breaks a lock whose holder died and whose pid the kernel gave to another process", async () => {
    const lock = join(dir, "lock");
    // This process's pid, as a dead holder's reused pid looks: alive, but started at another time.
    const holder = {
      pid: process.pid,
      started: "1",
      hostname: hostname(),
      command: "crashed",
      acquiredAt: "x",
    };
    writeFileSync(lock, JSON.stringify(holder));
    const release = await acquireLock(lock, { timeoutMs: 500, command: "next" });
    const taken = JSON.parse(readFileSync(lock, "utf8"));
    expect(taken.command).toBe("next");
    expect(taken.started).toBe(processStarted(process.pid));
    release();
  });

  it("a checkpoint's process is alive only while the pid is still that process", () => {
    const base = { sessionId: "s", taskNumber: 1, operation: "research", previousStatus: "not_started" };
    const open = { ...base, hostname: hostname(), startedAt: "2026-01-01T00:00:00Z", pid: process.pid };
    expect(isCheckpointProcessAlive({ ...open, pidStarted: processStarted(process.pid)! })).toBe(true);
    expect(isCheckpointProcessAlive({ ...open, pidStarted: "1" })).toBe(false);
    expect(isCheckpointProcessAlive(open)).toBe(true);
    expect(isCheckpointProcessAlive({ ...open, pid: deadPid() })).toBe(false);
  });

  it("breaks an empty lock file left by a creator that died before writing", async () => {
    const lock = join(dir, "lock");
    writeFileSync(lock, "");
    const old = new Date(Date.now() - 60_000);
    utimesSync(lock, old, old);
    const release = await acquireLock(lock, { timeoutMs: 500, command: "next" });
    release();
  });

  it("serialises read-modify-write across processes", async () => {
    const lockModule = resolve(import.meta.dirname, "../../dist/index.js");
    const counter = join(dir, "counter");
    writeFileSync(counter, "0");
    // Each worker does a deliberately slow read-modify-write; without the lock updates would be lost.
    const worker = `
      const { acquireLock } = await import(${JSON.stringify(lockModule)});
      const fs = await import("node:fs");
      for (let i = 0; i < 10; i++) {
        const release = await acquireLock(${JSON.stringify(join(dir, "lock"))}, { timeoutMs: 20000, command: "w" });
        const n = Number(fs.readFileSync(${JSON.stringify(counter)}, "utf8"));
        await new Promise((r) => setTimeout(r, 1));
        fs.writeFileSync(${JSON.stringify(counter)}, String(n + 1));
        release();
      }`;
    const runs = Array.from(
      { length: 8 },
      () =>
        new Promise<number>((done) => {
          const child = spawn(process.execPath, ["--input-type=module", "-e", worker], { stdio: "inherit" });
          child.on("exit", (code) => done(code ?? 1));
        }),
    );
    expect(await Promise.all(runs)).toEqual(Array(8).fill(0));
    expect(readFileSync(counter, "utf8")).toBe("80");
  });
});
