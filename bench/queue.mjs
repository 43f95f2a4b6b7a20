// Throughput of `baton run` for 16 research jobs of scripted 1 s agents, in one run: in-process (one
// machine, no database) and through the queue (a throwaway PostgreSQL cluster, pg-boss) with 1, 2 and 4
// workers, each worker in a clone of its own. Prints jobs per second, the speed-up over one worker,
// and the per-job overhead of each path beside the agent's own second.
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BIN, machine, QUICK, table, tempDir } from "./common.mjs";

const JOBS = QUICK ? 8 : 16;
const AGENT_MS = 1000;
const WORKERS = QUICK ? [1, 2] : [1, 2, 4];

function pgBin() {
  const base = "/usr/lib/postgresql";
  if (!existsSync(base)) return null;
  const v = readdirSync(base)
    .filter((d) => existsSync(join(base, d, "bin", "initdb")))
    .sort()
    .pop();
  return v ? join(base, v, "bin") : null;
}

async function freePort() {
  const server = createServer();
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address();
  await new Promise((r) => server.close(r));
  return port;
}

async function startPostgres(bin) {
  const dir = mkdtempSync(join(tmpdir(), "baton-bench-pg-"));
  const root = process.getuid?.() === 0;
  if (root) {
    execFileSync("chown", ["postgres:postgres", dir]);
    chmodSync(dir, 0o700);
  }
  const as = (cmd, args) =>
    execFileSync(root ? "runuser" : cmd, root ? ["-u", "postgres", "--", cmd, ...args] : args, {
      stdio: "pipe",
    });
  as(join(bin, "initdb"), ["-D", join(dir, "data"), "-U", "baton", "--auth=trust", "--no-sync"]);
  const port = await freePort();
  as(join(bin, "pg_ctl"), [
    "-D",
    join(dir, "data"),
    "-o",
    `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`,
    "-l",
    join(dir, "log"),
    "-w",
    "start",
  ]);
  return {
    url: `postgres://baton@127.0.0.1:${port}/postgres`,
    destroy: () => {
      try {
        as(join(bin, "pg_ctl"), ["-D", join(dir, "data"), "-m", "immediate", "stop"]);
      } catch {}
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function repoWithTasks(dir, jobs = JOBS, agentMs = AGENT_MS) {
  const git = (...args) => execFileSync("git", args, { cwd: dir, stdio: "pipe" });
  git("init", "-q", "-b", "main");
  git("config", "user.email", "bench@baton");
  git("config", "user.name", "bench");
  for (let i = 1; i <= jobs; i++)
    spawnSync(process.execPath, [BIN, "task", "add", `Benchmark task ${i}`], { cwd: dir });
  git("add", "-A");
  git("commit", "-qm", "tasks");
  const report = `# Research Report\n\n## Findings\n\n${"- A finding with the file and line it concerns and why it matters.\n".repeat(5)}`;
  const script = join(dir, ".git", "agent.json");
  writeFileSync(
    script,
    JSON.stringify({
      operations: {
        research: [
          { sleepMs: agentMs },
          { write: "{task_folder}/reports/research-001.md", content: report },
          {
            writeMetadata: {
              status: "researched",
              summary: "found",
              artifacts: [{ type: "research", path: "{task_folder}/reports/research-001.md" }],
              metadata: { session_id: "{session_id}", agent_type: "scripted" },
            },
          },
        ],
      },
    }),
  );
  return script;
}

function runCoordinator(dir, args, env = {}) {
  const start = process.hrtime.bigint();
  const result = spawnSync(
    process.execPath,
    [BIN, "run", "--all-ready", "--until", "researched", ...args, "--json"],
    {
      cwd: dir,
      encoding: "utf8",
      env: { ...process.env, ...env },
      maxBuffer: 64 << 20,
    },
  );
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  const report = JSON.parse(result.stdout || "{}");
  const ok = (report.runs ?? []).filter((r) => r.ok).length;
  if (ok !== JOBS) throw new Error(`only ${ok} of ${JOBS} jobs done: ${result.stderr.slice(-500)}`);
  return ms;
}

/**
 * A worker killed with kill -9 while its agent runs, with the defaults people get (heartbeat 5 s, lost after
 * 30 s, an agent timeout of 600 s and a lease margin of 300 s): the seconds until another worker holds the job,
 * beside what the lease's expiry alone would have cost.
 */
async function failover(pg, cleanups) {
  const coord = tempDir("queue-failover");
  cleanups.push(coord.cleanup);
  const script = repoWithTasks(coord.dir, 1, 20_000);
  const worker = (name) => {
    const clone = join(mkdtempSync(join(tmpdir(), "baton-bench-clone-")), "w");
    execFileSync("git", ["clone", "-q", coord.dir, clone]);
    cleanups.push(() => rmSync(join(clone, ".."), { recursive: true, force: true }));
    const child = spawn(
      process.execPath,
      [BIN, "worker", "--queue", pg.url, "--repo", clone, "--script", script, "--machine", name],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    let out = "";
    child.stdout.on("data", (c) => (out += c));
    child.stderr.on("data", (c) => (out += c));
    return { child, log: () => out };
  };
  const doomed = worker("doomed");
  const coordinator = spawn(
    process.execPath,
    [BIN, "run", "--all-ready", "--until", "researched", "--timeout", "600", "--queue", pg.url],
    { cwd: coord.dir, stdio: "ignore" },
  );
  while (!doomed.log().includes("attempt 1")) await new Promise((r) => setTimeout(r, 100));
  doomed.child.kill("SIGKILL");
  const killed = process.hrtime.bigint();
  const survivor = worker("survivor");
  while (!survivor.log().includes("attempt 2")) await new Promise((r) => setTimeout(r, 100));
  const seconds = Number(process.hrtime.bigint() - killed) / 1e9;
  survivor.child.kill("SIGTERM");
  coordinator.kill("SIGTERM");
  await Promise.all([survivor.child, coordinator].map((c) => new Promise((r) => c.once("exit", r))));
  return table([
    ["failover after kill -9 of a worker mid-job", "seconds", "lease expiry alone", "target"],
    [
      "taken by another worker (heartbeat 5 s, lost after 30 s)",
      seconds.toFixed(1),
      "900 (600 s timeout + 300 s margin)",
      seconds <= 60 ? "<= 60: met" : "<= 60: missed",
    ],
  ]);
}

console.log(`# Queue: ${JOBS} research jobs of scripted ${AGENT_MS / 1000} s agents`);
console.log(`machine: ${machine()}\n`);
const bin = pgBin();
if (!bin) {
  console.log("PostgreSQL is not installed (Debian package postgresql): the queue path is skipped.");
  process.exit(0);
}
const rows = [["path", "wall", "jobs/s", "x one worker", "per-job overhead", "target"]];
const cleanups = [];
const FAILOVER_ONLY = process.argv.includes("--failover");
try {
  if (FAILOVER_ONLY) {
    const pg = await startPostgres(bin);
    cleanups.push(pg.destroy);
    console.log(await failover(pg, cleanups));
  } else await throughput(rows, cleanups);
} finally {
  for (const cleanup of cleanups.reverse()) cleanup();
}

async function throughput(rows, cleanups) {
  const local = tempDir("queue-local");
  cleanups.push(local.cleanup);
  const localScript = repoWithTasks(local.dir);
  for (const concurrency of [1, 2]) {
    // a fresh copy of the tasks for every measurement
    const copy = tempDir(`queue-local-${concurrency}`);
    cleanups.push(copy.cleanup);
    const script = repoWithTasks(copy.dir);
    const ms = runCoordinator(copy.dir, ["--concurrency", String(concurrency), "--script", script]);
    const perJob = (ms * concurrency) / JOBS - AGENT_MS;
    rows.push([
      `baton run in-process, concurrency ${concurrency}`,
      `${(ms / 1000).toFixed(1)} s`,
      (JOBS / (ms / 1000)).toFixed(2),
      "",
      `${perJob.toFixed(0)} ms`,
      "",
    ]);
  }
  void localScript;
  const pg = await startPostgres(bin);
  cleanups.push(pg.destroy);
  let one = 0;
  for (const n of WORKERS) {
    const coord = tempDir(`queue-coord-${n}`);
    cleanups.push(coord.cleanup);
    const script = repoWithTasks(coord.dir);
    const env = { BATON_QUEUE_MAINTENANCE_S: "1", BATON_QUEUE_LEASE_MARGIN_S: "30" };
    const workers = [];
    for (let k = 0; k < n; k++) {
      const clone = join(mkdtempSync(join(tmpdir(), "baton-bench-clone-")), "w");
      execFileSync("git", ["clone", "-q", coord.dir, clone]);
      cleanups.push(() => rmSync(join(clone, ".."), { recursive: true, force: true }));
      workers.push(
        spawn(
          process.execPath,
          [BIN, "worker", "--queue", pg.url, "--repo", clone, "--script", script, "--machine", `w${k + 1}`],
          {
            env: { ...process.env, ...env },
            stdio: "ignore",
          },
        ),
      );
    }
    await new Promise((r) => setTimeout(r, 1500));
    const ms = runCoordinator(coord.dir, ["--concurrency", String(JOBS), "--queue", pg.url], env);
    for (const w of workers) w.kill("SIGTERM");
    await Promise.all(workers.map((w) => new Promise((r) => w.once("exit", r))));
    const rate = JOBS / (ms / 1000);
    if (n === 1) one = rate;
    const speedup = rate / one;
    const perJob = (ms * n) / JOBS - AGENT_MS;
    rows.push([
      `--queue, ${n} worker${n === 1 ? "" : "s"}`,
      `${(ms / 1000).toFixed(1)} s`,
      rate.toFixed(2),
      speedup.toFixed(2),
      `${perJob.toFixed(0)} ms`,
      n === 1
        ? ""
        : speedup >= 0.8 * n
          ? `>= ${(0.8 * n).toFixed(1)}: met`
          : `>= ${(0.8 * n).toFixed(1)}: missed`,
    ]);
  }
  console.log(table(rows));
  console.log(`\n${await failover(pg, cleanups)}`);
  console.log(
    "\nper-job overhead = wall × parallel agents ÷ jobs − the agent's own second: GATE IN, the job's trip through\nPostgreSQL, fetch and worktree on the worker, push, and GATE OUT + COMMIT on the coordinator (in-process: GATE IN,\nGATE OUT and COMMIT in a child baton).",
  );
}
