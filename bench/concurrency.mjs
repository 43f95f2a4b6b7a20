// Many writers at once on one specs/ folder: Baton's lock + journal against the original system's
// `jq ... > <fixed shared temp file> && mv` pipeline (format reference 3.5). Every writer changes only
// its own task, so a correct store loses nothing; anything missing at the end is a lost update.
import { fork, spawn, spawnSync } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  BIN,
  DIST_GENERATOR,
  DIST_INDEX,
  doctorSyncFindings,
  machine,
  numberFlag,
  percentile,
  QUICK,
  ROOT,
  table,
  tempDir,
} from "./common.mjs";

// --procs/--iterations try other contention levels, e.g. `--procs 160 --iterations 10`.
const SIZE = QUICK
  ? { procs: 16, iterations: 5, cliProcs: 4, cliCalls: 3 }
  : { procs: 64, iterations: 25, cliProcs: 16, cliCalls: 5 };
SIZE.procs = numberFlag("procs", SIZE.procs);
SIZE.iterations = numberFlag("iterations", SIZE.iterations);
SIZE.cliProcs = Math.min(SIZE.cliProcs, SIZE.procs);
const WORKER = join(import.meta.dirname, "concurrency-worker.mjs");
const lib = await import(DIST_INDEX);
const { generateRepo } = await import(DIST_GENERATOR);

/** A realistic repo whose active tasks all start at not_started with a zero counter. */
async function prepareRepo(dir) {
  const repo = generateRepo({ dir, active: SIZE.procs, archived: 8, folders: false, seed: 7 });
  const ctx = lib.storeContext(await lib.loadConfig(dir));
  await lib.mutateStore(ctx, { command: "bench setup" }, (tx) => {
    for (const task of tx.tasks) {
      if (task.status !== "not_started") lib.applyStatus(tx, task, "not_started");
      task["bench_counter"] = 0;
    }
  });
  return repo.activeNumbers;
}

const finalStatus = (start, moves) =>
  moves % 2 === 0 ? start : start === "blocked" ? "not_started" : "blocked";

/** Reads the store back through the library: counters, final statuses and TODO markers. */
async function verifyStore(dir, numbers, expectedStatus, expectedCounter) {
  const ctx = lib.storeContext(await lib.loadConfig(dir));
  const snapshot = lib.readStore(ctx);
  const views = new Map(lib.taskViews(snapshot).map((v) => [v.number, v]));
  let counted = 0;
  let wrongStatus = 0;
  let todoDrift = 0;
  for (const n of numbers) {
    const task = snapshot.state.tasks.find((t) => t.project_number === n);
    const view = views.get(n);
    counted += Math.min(task?.["bench_counter"] ?? 0, expectedCounter);
    if (view?.status !== expectedStatus) wrongStatus++;
    if (view?.todoStatus !== undefined) todoDrift++;
  }
  // A crashed or leaking writer would leave its lock, journal or staged temp files behind.
  const leftovers = [
    ...readdirSync(ctx.paths.dir).filter((f) => f.endsWith(".tmp")),
    // state-format.json is the store's canonical-form hint, kept on purpose.
    ...readdirSync(ctx.paths.internalDir).filter((f) => f !== ".gitignore" && f !== "state-format.json"),
  ];
  return { counted, wrongStatus, todoDrift, leftovers };
}

async function runLibrary(dir, numbers) {
  const distIndex = join(ROOT, "dist", "index.js");
  const forked = numbers.map((n) => {
    const child = fork(WORKER, [distIndex, dir, String(n), String(SIZE.iterations)], {
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    // A worker that dies while loading must not leave the barrier waiting forever.
    const ready = new Promise((resolve) => {
      child.once("message", resolve);
      child.once("exit", resolve);
    });
    const done = new Promise((resolve) => {
      child.on("message", (m) => m !== "ready" && resolve(m));
      child.on("exit", (code) =>
        resolve({ number: n, ok: 0, errors: [`worker exited with ${code}`], latencies: [] }),
      );
    });
    return { child, ready, done };
  });
  const spawnStart = performance.now();
  await Promise.all(forked.map((f) => f.ready));
  const start = performance.now();
  for (const f of forked) f.child.send("go");
  const results = await Promise.all(forked.map((f) => f.done));
  const ms = performance.now() - start;
  return { results, ms, withStartupMs: performance.now() - spawnStart };
}

function spawnAsync(command, args, options) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { ...options, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("close", (status) => resolve({ status, stdout, stderr }));
  });
}

/** Concurrent chains of real `baton task status` calls: each call is only valid if the previous one landed. */
async function runCli(dir, numbers, startStatus) {
  const start = performance.now();
  const chains = numbers.map(async (n) => {
    const failures = [];
    let status = startStatus;
    for (let i = 0; i < SIZE.cliCalls; i++) {
      const target = status === "blocked" ? "not_started" : "blocked";
      const args = [
        BIN,
        "task",
        "status",
        String(n),
        target,
        ...(target === "blocked" ? ["--reason", "cli bench"] : []),
      ];
      const result = await spawnAsync(process.execPath, args, { cwd: dir });
      if (result.status === 0) status = target;
      else failures.push(result.stderr.trim());
    }
    return failures;
  });
  const failures = (await Promise.all(chains)).flat();
  return { failures, ms: performance.now() - start };
}

// The original's update, verbatim in shape: read state.json, write ONE fixed temp path, mv it back.
// The path is fixed per run rather than literally /tmp/state.tmp so that it cannot clash with anything
// else on the machine; every writer of the run shares it, which is the race being measured. The
// "private" variant gives each update its own mktemp file, to separate the corruption caused by the
// shared temp file from the updates lost simply because nothing serialises read-modify-write.
const BASH_WORKER = `
n=$1; iterations=$2; shared_tmp=$3; go=$4; mode=$5
while [ ! -e "$go" ]; do sleep 0.005; done
ok=0; failed=0
for ((i = 0; i < iterations; i++)); do
  if [ "$mode" = private ]; then tmp=$(mktemp "$shared_tmp.XXXXXX"); else tmp=$shared_tmp; fi
  if jq --argjson n "$n" '(.active_projects[] | select(.project_number == $n)) |= (.bench_counter += 1 | .status = (if .status == "blocked" then "not_started" else "blocked" end))' specs/state.json > "$tmp" 2>/dev/null && mv "$tmp" specs/state.json 2>/dev/null; then
    ok=$((ok + 1))
  else
    failed=$((failed + 1))
  fi
done
echo "$ok $failed"
`;

async function runBashBaseline(dir, numbers, mode) {
  const sharedTmp = join(dir, "state.tmp");
  const go = join(dir, "go");
  const running = numbers.map((n) =>
    spawnAsync("bash", ["-c", BASH_WORKER, "bash", String(n), String(SIZE.iterations), sharedTmp, go, mode], {
      cwd: dir,
    }),
  );
  // Let every bash reach its wait loop so all start together, as the Baton workers do.
  await new Promise((resolve) => setTimeout(resolve, 300));
  const start = performance.now();
  writeFileSync(go, "");
  const results = await Promise.all(running);
  const ms = performance.now() - start;
  let ok = 0;
  let failed = 0;
  for (const r of results) {
    const [o, f] = r.stdout.trim().split(" ").map(Number);
    ok += o || 0;
    failed += Number.isFinite(f) ? f : SIZE.iterations;
  }
  const text = readFileSync(join(dir, "specs", "state.json"), "utf8");
  let counted = 0;
  let wrongStatus = numbers.length;
  let valid = true;
  try {
    const state = JSON.parse(text);
    wrongStatus = 0;
    for (const n of numbers) {
      const task = state.active_projects.find((t) => t.project_number === n);
      counted += Math.min(task?.bench_counter ?? 0, SIZE.iterations);
      if (task?.status !== finalStatus("not_started", SIZE.iterations)) wrongStatus++;
    }
  } catch {
    valid = false;
  }
  return { ok, failed, counted, wrongStatus, valid, bytes: text.length, ms };
}

const total = SIZE.procs * SIZE.iterations;
const fmtRate = (n, ms) => `${Math.round((n / ms) * 1000)}/s`;
console.log(
  `# Concurrency: ${SIZE.procs} processes x ${SIZE.iterations} status changes, each on its own task`,
);
console.log(`machine: ${machine()}\n`);

let failures = 0;
const columns = [["", "baton (library)", "baton (CLI)", "bash+jq, shared tmp", "bash+jq, mktemp"]];

const batonRepo = tempDir("concurrency");
try {
  const numbers = await prepareRepo(batonRepo.dir);
  const run = await runLibrary(batonRepo.dir, numbers);
  const errors = run.results.flatMap((r) => r.errors);
  const latencies = run.results.flatMap((r) => r.latencies);
  const afterLib = finalStatus("not_started", SIZE.iterations);
  const check = await verifyStore(batonRepo.dir, numbers, afterLib, SIZE.iterations);

  const cliNumbers = numbers.slice(0, SIZE.cliProcs);
  const cli = await runCli(batonRepo.dir, cliNumbers, afterLib);
  const afterCli = finalStatus(afterLib, SIZE.cliCalls);
  const cliCheck = await verifyStore(batonRepo.dir, cliNumbers, afterCli, SIZE.iterations);
  const doctor = doctorSyncFindings(batonRepo.dir);

  for (const e of [...new Set([...errors, ...cli.failures])].slice(0, 5)) console.log(`  error: ${e}`);
  if (check.leftovers.length + cliCheck.leftovers.length > 0) {
    console.log(`  leftover files: ${[...check.leftovers, ...cliCheck.leftovers].join(", ")}`);
  }
  console.log(`  doctor after both runs: ${doctor.detail}`);
  // A refused update (LOCK_TIMEOUT) is reported to its caller; a silent loss is one that reported success.
  const silent = Math.max(0, total - errors.length - check.counted);
  const cliSilent = cli.failures.length === 0 ? cliCheck.wrongStatus : 0;
  failures += errors.length + silent + check.todoDrift + check.leftovers.length;
  failures += cli.failures.length + cliSilent + cliCheck.todoDrift + (doctor.ok ? 0 : 1);
  failures += cliCheck.counted === cliNumbers.length * SIZE.iterations ? 0 : 1;

  const cliTotal = SIZE.cliProcs * SIZE.cliCalls;
  columns.push(
    ["writers x updates", `${SIZE.procs} x ${SIZE.iterations}`, `${SIZE.cliProcs} x ${SIZE.cliCalls}`],
    ["updates reported ok", total - errors.length, cliTotal - cli.failures.length],
    ["updates that failed", errors.length, cli.failures.length],
    ["not applied at the end", total - check.counted, cli.failures.length + cliSilent],
    ["silently lost", silent, cliSilent],
    ["final status wrong", check.wrongStatus, cliCheck.wrongStatus],
    ["TODO.md out of sync", check.todoDrift, cliCheck.todoDrift],
    ["attempts/s", fmtRate(total, run.ms), fmtRate(cliTotal, cli.ms)],
    ["wall time", `${(run.ms / 1000).toFixed(2)} s`, `${(cli.ms / 1000).toFixed(2)} s`],
  );
  console.log(
    `  library: ${(run.withStartupMs / 1000).toFixed(2)} s including node start-up; per update p50 ` +
      `${percentile(latencies, 50).toFixed(0)} ms, p95 ${percentile(latencies, 95).toFixed(0)} ms, ` +
      `max ${Math.max(...latencies).toFixed(0)} ms (lock wait included)`,
  );
} finally {
  batonRepo.cleanup();
}

const jq = spawnSync("jq", ["--version"], { encoding: "utf8" });
for (const mode of ["shared", "private"]) {
  if (jq.error || jq.status !== 0) {
    if (mode === "shared")
      console.log("  bash baselines skipped: jq is not installed (apt-get install -y jq)");
    for (const row of columns.slice(1)) row.push("skipped");
    continue;
  }
  const bashRepo = tempDir(`bash-${mode}`);
  try {
    const numbers = await prepareRepo(bashRepo.dir);
    const b = await runBashBaseline(bashRepo.dir, numbers, mode);
    const silent = Math.max(0, b.ok - b.counted);
    console.log(
      `  bash + ${jq.stdout.trim()}, ${mode} temp file: final state.json ` +
        `${b.valid ? "is valid JSON" : `is CORRUPT (${b.bytes} bytes)`}; ` +
        `${b.ok} updates reported success, ${silent} of those silently lost`,
    );
    const rows = {
      "writers x updates": `${SIZE.procs} x ${SIZE.iterations}`,
      "updates reported ok": b.ok,
      "updates that failed": b.failed,
      "not applied at the end": total - b.counted,
      "silently lost": silent,
      "final status wrong": b.valid ? b.wrongStatus : `${b.wrongStatus} (file corrupt)`,
      // The original edited TODO.md separately (an LLM string replace), so it is not part of this pipeline.
      "TODO.md out of sync": "n/a",
      "attempts/s": fmtRate(total, b.ms),
      "wall time": `${(b.ms / 1000).toFixed(2)} s`,
    };
    for (const row of columns.slice(1)) row.push(rows[row[0]]);
  } finally {
    bashRepo.cleanup();
  }
}

console.log(`\n${table(columns)}\n`);
console.log(
  "not applied = expected counter total minus the counters found at the end; silently lost = reported " +
    "success but not in the final file (baton CLI: a chain whose calls all succeeded but whose final status is wrong).\nshared tmp = the original pipeline (format reference 3.5); mktemp = the same " +
    "without the shared temp file, still without a lock.",
);
console.log(
  failures === 0
    ? "baton: PASS (no lost or failed updates, files in sync)"
    : `baton: FAIL (${failures} problems)`,
);
process.exitCode = failures === 0 ? 0 : 1;
