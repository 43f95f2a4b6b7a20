// `baton verify` on a long history: a generated repository whose state.json changed in 4,000 commits
// (--commits N for another size), tasks moving through research → plan → implement, Baton adopted near
// the end. Measures the first run (no cache) and an incremental run after one more commit, beside a bare
// `git log` of the same file in the same run. Targets: first ≤ 5 s, incremental ≤ 1 s (issue 24).
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { machine, median, numberFlag, QUICK, runBaton, table, tempDir } from "./common.mjs";

const COMMITS = numberFlag("commits", QUICK ? 800 : 4000);
const RUNS = numberFlag("runs", QUICK ? 2 : 3);
const FIRST_TARGET_MS = 5000;
const INCREMENTAL_TARGET_MS = 1000;
const STATUSES = [
  "not_started",
  "researching",
  "researched",
  "planning",
  "planned",
  "implementing",
  "completed",
];

console.log(`# baton verify on a history of ${COMMITS} commits to state.json, median of ${RUNS} runs`);
console.log(`machine: ${machine()}\n`);

/** The history as one `git fast-import` stream: every commit rewrites state.json, one task moves a step. */
function historyStream(commits) {
  const tasks = [];
  const chunks = [];
  const at = 1_700_000_000;
  for (let i = 1; i <= commits; i++) {
    if (i % 7 === 1 || tasks.length === 0)
      tasks.unshift({
        project_number: tasks.length + 1,
        project_name: `task_${tasks.length + 1}`,
        status: "not_started",
        language: "general",
      });
    const moving = tasks[i % Math.min(tasks.length, 40)];
    const step = STATUSES.indexOf(moving.status);
    if (step < STATUSES.length - 1) moving.status = STATUSES[step + 1];
    const state = `${JSON.stringify({ next_project_number: tasks.length + 1, active_projects: tasks }, null, 2)}\n`;
    const message = `task ${moving.project_number}: ${moving.status}\n`;
    chunks.push(
      `commit refs/heads/main\nmark :${i}\ncommitter Bench <bench@localhost> ${at + i} +0000\ndata ${Buffer.byteLength(message)}\n${message}`,
      i > 1 ? `from :${i - 1}\n` : "",
      `M 100644 inline specs/state.json\ndata ${Buffer.byteLength(state)}\n${state}\n`,
    );
    // Baton is adopted 50 commits before the end: everything earlier is pre-adoption history.
    if (i === commits - 50) chunks.push(`M 100644 inline baton.config.json\ndata 3\n{}\n\n`);
  }
  return chunks.join("");
}

const repo = tempDir("verify-history");
const dir = repo.dir;
try {
  const git = (...args) => execFileSync("git", args, { cwd: dir, encoding: "utf8", maxBuffer: 1 << 28 });
  git("init", "-q", "-b", "main");
  let t = performance.now();
  execFileSync("git", ["fast-import", "--quiet"], {
    cwd: dir,
    input: historyStream(COMMITS),
    maxBuffer: 1 << 28,
  });
  git("checkout", "-q", "main");
  console.log(`generated ${COMMITS} commits in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  // An adopted repository has Baton's folder, where the per-commit cache lives.
  mkdirSync(join(dir, ".baton", "cache"), { recursive: true });
  const first = [];
  const incremental = [];
  const bare = [];
  let summary = "";
  for (let run = 0; run < RUNS; run++) {
    rmSync(join(dir, ".baton", "cache"), { recursive: true, force: true });
    t = performance.now();
    spawnSync("git", ["log", "--format=%H", "--", "specs/state.json"], { cwd: dir, maxBuffer: 1 << 28 });
    bare.push(performance.now() - t);
    const cold = runBaton(dir, ["verify"]);
    if (cold.status !== 0 && cold.status !== 1) throw new Error(`verify failed: ${cold.stderr}`);
    first.push(cold.ms);
    summary = cold.stdout.split("\n").find((l) => l.startsWith("Before adoption")) ?? cold.stdout;
    writeFileSync(join(dir, "NOTES.md"), `run ${run}\n`);
    git("add", "-A");
    git("-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", `notes ${run}`);
    incremental.push(runBaton(dir, ["verify"]).ms);
  }
  const f = median(first);
  const inc = median(incremental);
  const b = median(bare);
  console.log(summary);
  console.log(
    table([
      ["measure", "median ms", "target ms", "ratio to target", "ratio to bare git log"],
      ["bare git log of state.json", b.toFixed(0), "-", "-", "1.00"],
      [
        "verify, first run (no cache)",
        f.toFixed(0),
        FIRST_TARGET_MS,
        (f / FIRST_TARGET_MS).toFixed(2),
        (f / b).toFixed(2),
      ],
      [
        "verify, incremental (1 new commit)",
        inc.toFixed(0),
        INCREMENTAL_TARGET_MS,
        (inc / INCREMENTAL_TARGET_MS).toFixed(2),
        (inc / b).toFixed(2),
      ],
    ]),
  );
  const ok = f <= FIRST_TARGET_MS && inc <= INCREMENTAL_TARGET_MS;
  console.log(ok ? "\nwithin both targets" : "\nOVER a target");
  process.exitCode = ok ? 0 : 1;
} finally {
  repo.cleanup();
}
