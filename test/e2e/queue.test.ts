import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import pgClient from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { openQueue } from "../../src/batch/queue/boss.js";
import { readAllEvents } from "../../src/shared/event-stream.js";
import { wholeWayScript } from "../../src/testing/generate-plan.js";
import { type Postgres, postgresMissing, startPostgres } from "../../src/testing/postgres.js";
import { requireUnderCi } from "../../src/testing/requirements.js";
import { BATON_BIN, waitFor } from "../support/cli.js";
import { activeTasks, commitAll, git, ok, okJson, tasksWithScript, tempDir } from "./helpers.js";

async function until<T>(read: () => T, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const value = read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * `baton run --queue` with real parts: a throwaway PostgreSQL cluster, a coordinator and workers as
 * separate processes, each worker in its own clone (as on another machine), scripted agents.
 */
const missing = postgresMissing();
requireUnderCi("PostgreSQL (Debian package postgresql)", missing);

let pg: Postgres;
beforeAll(async () => {
  if (!missing) pg = await startPostgres();
}, 60_000);
afterAll(() => pg?.destroy());
let children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
  children = [];
});

const ENV = { BATON_QUEUE_MAINTENANCE_S: "1", BATON_QUEUE_LEASE_MARGIN_S: "2" };

const coordinatorRepo = tasksWithScript;

/** A worker in a clone of its own, as another machine would have. */
function startWorker(
  coordinator: string,
  name: string,
  script: string,
  db = pg.url,
  extra: { env?: Record<string, string>; args?: string[] } = {},
): { clone: string; child: ChildProcess; log: () => string } {
  const clone = join(tempDir("baton-worker-clone-"), name);
  execFileSync("git", ["clone", "-q", coordinator, clone]);
  const child = spawn(
    process.execPath,
    [
      BATON_BIN,
      "worker",
      "--queue",
      db,
      "--repo",
      clone,
      "--script",
      script,
      "--machine",
      name,
      ...(extra.args ?? []),
    ],
    { cwd: clone, env: { ...process.env, ...ENV, ...extra.env }, stdio: ["ignore", "pipe", "pipe"] },
  );
  let out = "";
  child.stdout!.on("data", (c: Buffer) => (out += c.toString()));
  child.stderr!.on("data", (c: Buffer) => (out += c.toString()));
  children.push(child);
  return { clone, child, log: () => out };
}

function coordinator(
  dir: string,
  args: string[],
  db = pg.url,
  env: Record<string, string> = {},
): Promise<{ code: number | null; out: string }> {
  const child = spawn(process.execPath, [BATON_BIN, "run", ...args, "--queue", db], {
    cwd: dir,
    env: { ...process.env, ...ENV, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let out = "";
  child.stdout!.on("data", (c: Buffer) => (out += c.toString()));
  child.stderr!.on("data", (c: Buffer) => (out += c.toString()));
  return new Promise((resolve) => child.once("exit", (code) => resolve({ code, out })));
}

const statuses = (dir: string) => activeTasks(dir).map((t) => t.status);
const subjects = (dir: string) => git(dir, ["log", "--format=%s"]).trim().split("\n");

describe.skipIf(missing !== null)("baton run --queue (PostgreSQL, pg-boss)", () => {
  /** Setup errors the server saw since `mark`: a race, even one a client retried past, shows there. */
  const setupRaces = (mark: number) =>
    pg
      .log()
      .slice(mark)
      .split("\n")
      .filter((l) => /ERROR: .*(duplicate key|already exists|deadlock detected)/.test(l));

  it("lets workers that start at once on a fresh database all open the queue, one setup at a time", async () => {
    const mark = pg.log().length;
    const admin = await openQueue(pg.url);
    try {
      for (let round = 0; round < 3; round++) {
        const name = `fresh_${round}_${process.pid}`;
        await admin.getDb().executeSql(`CREATE DATABASE ${name}`, []);
        const url = pg.url.replace(/\/postgres$/, `/${name}`);
        const opened = await Promise.allSettled(Array.from({ length: 4 }, () => openQueue(url)));
        for (const o of opened)
          if (o.status === "fulfilled") await o.value.stop({ graceful: false, wait: false });
        expect(
          opened
            .filter((o) => o.status === "rejected")
            .map((o) => String((o as PromiseRejectedResult).reason)),
        ).toEqual([]);
      }
    } finally {
      await admin.stop({ graceful: false, wait: false });
    }
    expect(setupRaces(mark)).toEqual([]);
  }, 60_000);

  it("a coordinator and two workers started at the same moment on an empty database: one setup, every task done", async () => {
    const mark = pg.log().length;
    const admin = await openQueue(pg.url);
    const name = `allatonce_${process.pid}`;
    try {
      await admin.getDb().executeSql(`CREATE DATABASE ${name}`, []);
    } finally {
      await admin.stop({ graceful: false, wait: false });
    }
    const db = pg.url.replace(/\/postgres$/, `/${name}`);
    const { dir, script } = coordinatorRepo(8, wholeWayScript());
    // Clones first (git is slow next to a process start), then all three processes in the same tick.
    const clones = ["machine-a", "machine-b"].map((m) => {
      const clone = join(tempDir("baton-worker-clone-"), m);
      execFileSync("git", ["clone", "-q", dir, clone]);
      return { clone, machine: m };
    });
    const workers = clones.map(({ clone, machine }) => {
      const child = spawn(
        process.execPath,
        [BATON_BIN, "worker", "--queue", db, "--repo", clone, "--script", script, "--machine", machine],
        { cwd: clone, env: { ...process.env, ...ENV }, stdio: ["ignore", "pipe", "pipe"] },
      );
      children.push(child);
      let out = "";
      child.stdout!.on("data", (c: Buffer) => (out += c.toString()));
      child.stderr!.on("data", (c: Buffer) => (out += c.toString()));
      return { child, log: () => out };
    });
    const run = await coordinator(dir, ["--all-ready", "--until", "researched", "--concurrency", "4"], db);
    const logs = workers.map((w) => w.log()).join("\n");
    expect(run.code, `${run.out}\n${logs}`).toBe(0);
    expect(`${run.out}${logs}`).not.toMatch(/duplicate key|unexpected failure|deadlock/);
    expect(statuses(dir)).toEqual(Array(8).fill("researched"));
    for (const w of workers) expect(w.child.exitCode, logs).toBe(null);
    expect(setupRaces(mark)).toEqual([]);
  }, 120_000);

  it("pauses a task whose plan waits for approval; the approved one is implemented through the queue", async () => {
    const { dir, script } = coordinatorRepo(2, wholeWayScript());
    ok(dir, ["run", "--all-ready", "--until", "planned", "--script", script]);
    writeFileSync(join(dir, "baton.config.yaml"), "approvals:\n  implement: plan\n");
    commitAll(dir, "approvals");
    ok(dir, ["approve", "1"]);
    startWorker(dir, "machine-approvals", script);
    const run = await coordinator(dir, ["--tasks", "1-2", "--until", "completed"]);
    const byNumber = Object.fromEntries(activeTasks(dir).map((t) => [t.project_number, t.status]));
    expect(byNumber, run.out).toEqual({ 1: "completed", 2: "planned" });
    expect(run.out).toContain("approve its plan: `baton approve 2`");
  }, 120_000);

  it("a worker whose start fails exits non-zero at once, saying why", async () => {
    const { dir, script } = coordinatorRepo(1, wholeWayScript());
    // A port nothing listens on: the queue cannot be opened.
    const closed = pg.url.replace(/:(\d+)\//, ":1/");
    const worker = startWorker(dir, "machine-x", script, closed);
    const code = await new Promise<number | null>((resolve) => worker.child.once("exit", resolve));
    expect(code, worker.log()).toBe(1);
    expect(worker.log()).toMatch(/cannot open the queue at postgres:\/\/[^ ]*:1\//);
    expect(worker.log()).toMatch(/ECONNREFUSED|connect/);
    expect(worker.log()).not.toContain("unexpected failure");
  }, 60_000);

  it("a worker that cannot start the agents' sandbox does not start, so it takes no job a healthy worker could run", async () => {
    const { dir, script } = coordinatorRepo(1, wholeWayScript());
    const noSandbox = { BATON_BWRAP: "/nonexistent/bwrap" };
    const worker = startWorker(dir, "machine-y", script, pg.url, { env: noSandbox });
    const code = await new Promise<number | null>((resolve) => worker.child.once("exit", resolve));
    expect(code, worker.log()).toBe(1);
    expect(worker.log()).toContain(
      "this worker cannot start the agents' sandbox: bubblewrap (/nonexistent/bwrap) is not installed",
    );
    expect(worker.log()).toContain("baton worker --sandbox off");
    expect(worker.log()).not.toContain("waiting for jobs");
    expect(worker.log()).not.toContain("unexpected failure");
    // Told on purpose, it starts: it serves coordinators that run unsandboxed.
    const unguarded = startWorker(dir, "machine-z", script, pg.url, {
      env: noSandbox,
      args: ["--sandbox", "off"],
    });
    await waitFor(
      () => unguarded.log().includes("waiting for jobs") || unguarded.child.exitCode !== null,
      60_000,
    );
    expect(unguarded.log()).toContain("waiting for jobs");
  }, 60_000);

  it("runs tasks to planned through workers on separate clones; the coordinator alone writes the store", async () => {
    const { dir, script } = coordinatorRepo(4, wholeWayScript());
    const w1 = startWorker(dir, "machine-a", script);
    const w2 = startWorker(dir, "machine-b", script);
    // Both on the queue before the jobs: on a loaded machine one worker could otherwise take them all.
    for (const w of [w1, w2]) {
      await waitFor(() => w.log().includes("waiting for jobs") || w.child.exitCode !== null, 60_000);
      expect(w.log(), `a worker never reached the queue:\n${w.log()}`).toContain("waiting for jobs");
    }
    const run = await coordinator(dir, ["--all-ready", "--until", "planned", "--concurrency", "4"]);
    expect(run.code, `${run.out}\n${w1.log()}\n${w2.log()}`).toBe(0);
    expect(statuses(dir)).toEqual(["planned", "planned", "planned", "planned"]);
    for (let n = 1; n <= 4; n++) {
      expect(subjects(dir).filter((s) => s === `task ${n}: complete research`)).toHaveLength(1);
      expect(subjects(dir).filter((s) => s === `task ${n}: create implementation plan`)).toHaveLength(1);
    }
    const leased = readAllEvents(dir).filter((e) => e.kind === "queue" && e.outcome === "leased");
    expect(new Set(leased.map((e) => e.machine)), `${w1.log()}\n${w2.log()}`).toEqual(
      new Set(["machine-a", "machine-b"]),
    );
    expect(git(dir, ["branch", "--list", "baton/*"])).toBe("");
    expect(git(dir, ["status", "--porcelain"])).toBe("");
    // The workers' clones never had their store written.
    for (const w of [w1, w2]) expect(git(w.clone, ["status", "--porcelain"])).toBe("");
  }, 120_000);

  it("survives kill -9 of a worker mid-job, PostgreSQL stopping for a while, and a refused push: nothing lost, nothing twice", async () => {
    const { dir, script } = coordinatorRepo(3, wholeWayScript({ sleepMs: 2500 }));
    // The coordinator's repository refuses the first push it is sent.
    const hook = join(dir, ".git", "hooks", "pre-receive");
    writeFileSync(
      hook,
      `#!/bin/sh\nif [ ! -f "${dir}/.git/refused-once" ]; then touch "${dir}/.git/refused-once"; echo "refused by the test" >&2; exit 1; fi\n`,
    );
    chmodSync(hook, 0o755);
    const doomed = startWorker(dir, "machine-doomed", script);
    const run = coordinator(dir, [
      "--all-ready",
      "--until",
      "researched",
      "--concurrency",
      "3",
      "--timeout",
      "6",
    ]);
    // The doomed worker takes a job, then dies without a word.
    const deadline = Date.now() + 30_000;
    while (!doomed.log().includes("attempt 1") && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    doomed.child.kill("SIGKILL");
    pg.stop();
    await new Promise((r) => setTimeout(r, 2500));
    pg.start();
    const survivor = startWorker(dir, "machine-survivor", script);
    const done = await run;
    expect(done.code, `${done.out}\n${survivor.log()}\n${doomed.log()}`).toBe(0);
    expect(statuses(dir)).toEqual(["researched", "researched", "researched"]);
    for (let n = 1; n <= 3; n++)
      expect(subjects(dir).filter((s) => s === `task ${n}: complete research`)).toHaveLength(1);
    expect(survivor.log()).toContain("refused by the test");
    const events = readAllEvents(dir).filter((e) => e.kind === "queue");
    expect(events.filter((e) => e.outcome === "recorded")).toHaveLength(3);
    expect(events.some((e) => e.outcome === "leased" && e.machine === "machine-doomed")).toBe(true);
  }, 180_000);

  it("a coordinator killed mid-run picks its queued jobs up again and records each once", async () => {
    const { dir, script } = coordinatorRepo(2, wholeWayScript({ sleepMs: 1500 }));
    const first = spawn(
      process.execPath,
      [BATON_BIN, "run", "--all-ready", "--until", "researched", "--concurrency", "2", "--queue", pg.url],
      { cwd: dir, env: { ...process.env, ...ENV }, stdio: "ignore" },
    );
    children.push(first);
    const deadline = Date.now() + 20_000;
    const enqueued = () =>
      readAllEvents(dir).filter((e) => e.kind === "queue" && e.outcome === "enqueued").length;
    while (enqueued() < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    first.kill("SIGKILL");
    await new Promise((r) => first.once("exit", r));
    // Until a worker takes them, status shows both runs as queued, not as dead.
    const waiting = okJson(dir, ["status", "--json"]).running;
    expect(waiting.map((r: { mode: string; doing: string }) => [r.mode, r.doing])).toEqual([
      ["queue", "queued, waiting for a worker"],
      ["queue", "queued, waiting for a worker"],
    ]);
    const worker = startWorker(dir, "machine-late", script);
    const running = coordinator(dir, ["--all-ready", "--until", "researched", "--concurrency", "2"]);
    // While the coordinator waits, status says which machine holds which job.
    const held = await until(
      () => okJson(dir, ["status", "--json"]).running,
      (r) => r.some((x: { machine?: string }) => x.machine === "machine-late"),
    );
    expect(held.find((r: { machine?: string }) => r.machine)?.doing).toBe("leased on machine-late");
    const again = await running;
    expect(again.code, `${again.out}\n${worker.log()}`).toBe(0);
    expect(statuses(dir)).toEqual(["researched", "researched"]);
    for (let n = 1; n <= 2; n++)
      expect(subjects(dir).filter((s) => s === `task ${n}: complete research`)).toHaveLength(1);
    const recorded = readAllEvents(dir).filter((e) => e.kind === "queue" && e.outcome === "recorded");
    expect(recorded).toHaveLength(2);
  }, 120_000);

  it("implements through the queue: the plan runs on the coordinator, each phase's agent on a worker", async () => {
    const { dir, script } = coordinatorRepo(2, wholeWayScript());
    ok(dir, ["task", "edit", "2", "--depends", "1"]);
    commitAll(dir, "2 depends on 1");
    const w1 = startWorker(dir, "machine-a", script);
    const w2 = startWorker(dir, "machine-b", script);
    const run = await coordinator(dir, ["--all-ready", "--until", "completed", "--concurrency", "2"]);
    expect(
      run.code,
      `${run.out}\n${w1.log()}\n${w2.log()}\n${existsSync(join(dir, "specs/errors.json")) ? readFileSync(join(dir, "specs/errors.json"), "utf8") : ""}`,
    ).toBe(0);
    expect(statuses(dir)).toEqual(["completed", "completed"]);
    const log = subjects(dir);
    for (const n of [1, 2]) {
      expect(log.filter((s) => s === `task ${n}: complete implementation`)).toHaveLength(1);
      expect(log.filter((s) => s.startsWith(`task ${n} phase `))).toHaveLength(2);
    }
    // Task 2's implementation started after task 1 was completed.
    expect(log.indexOf("task 2 phase 1: Step 1.1")).toBeLessThan(
      log.indexOf("task 1: complete implementation"),
    );
    expect(`${w1.log()}${w2.log()}`).toMatch(/task 2 implement/);
    expect(git(dir, ["branch", "--list", "baton/*"])).toBe("");
    expect(git(dir, ["status", "--porcelain"])).toBe("");
  }, 180_000);

  it("a worker killed with kill -9 loses its job in seconds by heartbeat, not after the agent's timeout; a frozen one that wakes records nothing; an older lease table migrates", async () => {
    const admin = await openQueue(pg.url);
    const name = `heartbeat_${process.pid}`;
    try {
      await admin.getDb().executeSql(`CREATE DATABASE ${name}`, []);
    } finally {
      await admin.stop({ graceful: false, wait: false });
    }
    const db = pg.url.replace(/\/postgres$/, `/${name}`);
    // The lease table as an older Baton made it: no heartbeat column.
    const old = new pgClient.Client({ connectionString: db });
    await old.connect();
    await old.query(
      "CREATE TABLE baton_lease (job_id uuid NOT NULL, retry int NOT NULL, machine text NOT NULL, started_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (job_id, retry))",
    );
    await old.end();
    const { dir, script } = coordinatorRepo(2, wholeWayScript({ sleepMs: 4000 }));
    const beat = { BATON_QUEUE_HEARTBEAT_MS: "500", BATON_QUEUE_LOST_AFTER_S: "3" };
    const doomed = startWorker(dir, "machine-doomed", script, db, { env: beat });
    const frozen = startWorker(dir, "machine-frozen", script, db, { env: beat });
    // The agent may take ten minutes, and the lease margin is the default 300 s: expiry alone would wait 900 s.
    const run = coordinator(
      dir,
      ["--all-ready", "--until", "researched", "--concurrency", "2", "--timeout", "600"],
      db,
      {
        ...beat,
        BATON_QUEUE_LEASE_MARGIN_S: "300",
      },
    );
    await until(
      () => doomed.log().includes("attempt 1") && frozen.log().includes("attempt 1"),
      (both) => both,
    );
    doomed.child.kill("SIGKILL");
    frozen.child.kill("SIGSTOP");
    const lost = Date.now();
    const survivor = startWorker(dir, "machine-survivor", script, db, { env: beat });
    const done = await run;
    const failover = Date.now() - lost;
    expect(done.code, `${done.out}\n${survivor.log()}`).toBe(0);
    expect(failover).toBeLessThan(45_000);
    expect(statuses(dir)).toEqual(["researched", "researched"]);
    frozen.child.kill("SIGCONT");
    await until(
      () => frozen.log(),
      (log) => log.includes("the lease was lost meanwhile"),
    );
    for (let n = 1; n <= 2; n++)
      expect(subjects(dir).filter((s) => s === `task ${n}: complete research`)).toHaveLength(1);
    const events = readAllEvents(dir).filter((e) => e.kind === "queue");
    expect(events.filter((e) => e.outcome === "recorded")).toHaveLength(2);
    expect(events.some((e) => e.outcome === "leased" && e.machine === "machine-survivor")).toBe(true);
  }, 120_000);
});
