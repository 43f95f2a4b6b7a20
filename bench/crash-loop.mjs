// Crash loop: `baton implement` killed with SIGKILL at random moments, again and again, on a real git
// repository with scripted phase agents. After each kill `baton recover` runs, then the invariants are
// checked: no phase is [COMPLETED] in a plan without its commit, and no stray file (temp files of atomic
// writes, return metadata, markers, a lock, a journal, a checkpoint) is tracked by git or left in
// the tree, nor a killed run's private agent files in its temp dir. At the end `baton verify` must pass on the whole history.
// Usage: node bench/crash-loop.mjs [--kills 1000] [--quick]
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { BIN, machine, numberFlag, QUICK, ROOT, tempDir } from "./common.mjs";

const KILLS = numberFlag("kills", QUICK ? 40 : 1000);
// Kills land anywhere in an uninterrupted run (about 3 s for this plan on a 2-core machine): in either wave,
// at a phase barrier, its commit, GATE OUT and COMMIT; a narrower window only ever kills the first wave.
const WINDOW_MS = numberFlag("window", 3500);
const SEED = numberFlag("seed", 7);
const { generatePlan, layeredPlanPhases } = await import(
  pathToFileURL(join(ROOT, "dist", "testing", "generate-plan.js")).href
);

let rng = SEED;
const random = () => {
  rng = (rng * 1103515245 + 12345) % 2147483648;
  return rng / 2147483648;
};

const repo = tempDir("crash");
const dir = repo.dir;
// Baton's own temp dir for this loop: the private agent files a killed run leaves must not outlive recover.
const temp = tempDir("crash-tmp");
const env = { ...process.env, TMPDIR: temp.dir };
const git = (...args) => execFileSync("git", args, { cwd: dir, encoding: "utf8" });
const baton = (...args) => spawnSync(process.execPath, [BIN, ...args], { cwd: dir, encoding: "utf8", env });

git("init", "-q");
git("config", "user.email", "crash@example.com");
git("config", "user.name", "Crash Loop");
writeFileSync(join(dir, "README.md"), "crash loop\n");
git("add", "-A");
git("commit", "-qm", "start");
// Each call writes content with its session and iteration, so a rerun of a reopened phase is a real change.
const agent = join(dir, ".git", "agent.json");
writeFileSync(
  agent,
  JSON.stringify({
    phases: {
      "*": {
        steps: [
          { sleepMs: 40 },
          {
            write: "src/phase-{phase_id}.ts",
            content: "export const phase = '{phase_id}'; // {session_id} {iteration}\n",
          },
          { sleepMs: 20 },
          {
            write: "{summary_file}",
            content: `# Phase {phase_id}\n\nSession {session_id}, iteration {iteration}.\n\n${"Implemented and verified. ".repeat(6)}\n`,
          },
          {
            writeMetadata: {
              status: "implemented",
              summary: "Phase {phase_id} implemented",
              artifacts: [{ type: "summary", path: "{summary_file}" }],
              files_changed: ["src/phase-{phase_id}.ts"],
              completion_data: { completion_summary: "Phase {phase_id} done." },
              metadata: { session_id: "{session_id}", agent_type: "crash-loop-agent" },
            },
          },
        ],
      },
    },
  }),
);

let task = 0;
/** A new task, planned through `baton plan` by a scripted planner, so its history carries evidence too. */
function newPlannedTask() {
  const added = JSON.parse(baton("task", "add", `Crash task ${task + 1}`, "-l", "general", "--json").stdout);
  task = added.number;
  const plan = generatePlan({
    style: "task",
    taskNumber: task,
    title: `Crash task ${task}`,
    phases: layeredPlanPhases(2, 2),
  });
  const planner = join(dir, ".git", `planner-${task}.json`);
  writeFileSync(
    planner,
    JSON.stringify({
      steps: [
        { write: "{task_folder}/plans/implementation-001.md", content: plan },
        {
          writeMetadata: {
            status: "planned",
            summary: "Four phases in two waves",
            artifacts: [{ type: "plan", path: "{task_folder}/plans/implementation-001.md" }],
            metadata: { session_id: "{session_id}", agent_type: "crash-loop-planner" },
          },
        },
      ],
    }),
  );
  const planned = baton("plan", String(task), "--script", planner);
  if (planned.status !== 0) throw new Error(`baton plan ${task} failed: ${planned.stdout}${planned.stderr}`);
}

const tracked = () => git("ls-files").split("\n");

/**
 * Control and temp files left anywhere in the work tree once recovery ran: temp files of atomic writes,
 * a commit's temp list, return metadata, markers, and in specs/.baton the lock, the journal and any open
 * checkpoint (after `baton recover` none may stay).
 */
function leftInTree() {
  const found = [];
  const walk = (at) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const path = join(at, entry.name);
      if (entry.name === ".git") continue;
      if (entry.isDirectory()) walk(path);
      else if (STRAY.test(entry.name) || /\.temps$/.test(entry.name)) found.push(path.slice(dir.length + 1));
    }
  };
  walk(dir);
  const internal = join(dir, "specs", ".baton");
  for (const name of ["lock", "journal.json"])
    if (existsSync(join(internal, name))) found.push(`specs/.baton/${name}`);
  const checkpoints = join(internal, "checkpoints");
  if (existsSync(checkpoints))
    for (const c of readdirSync(checkpoints)) found.push(`specs/.baton/checkpoints/${c}`);
  for (const name of readdirSync(temp.dir))
    if (name.startsWith("baton-agent-")) found.push(`$TMPDIR/${name}`);
  return found;
}
const STRAY =
  /(\.baton-\d+-[0-9a-f]+\.tmp|\.return-meta(\.phase-[^/]+)?\.json|(\.baton-|\.)postflight-(pending|loop-guard))$/;

/** Phases marked [COMPLETED] in any plan without their `task N phase K:` commit. */
function uncommittedCompletedPhases() {
  const subjects = new Set(git("log", "--format=%s").split("\n"));
  const found = [];
  for (const folder of readdirSync(join(dir, "specs"))) {
    const match = /^(\d+)_/.exec(folder);
    if (!match) continue;
    let plan;
    try {
      plan = readFileSync(join(dir, "specs", folder, "plans", "implementation-001.md"), "utf8");
    } catch {
      continue;
    }
    for (const m of plan.matchAll(/^### Phase (\S+): (.*) \[COMPLETED\]$/gm)) {
      if (![...subjects].some((s) => s.startsWith(`task ${match[1]} phase ${m[1]}:`))) {
        found.push(`task ${match[1]} phase ${m[1]}`);
      }
    }
  }
  return found;
}

console.log(
  `# Crash loop: ${KILLS} SIGKILLs during \`baton implement\`, each within ${WINDOW_MS} ms of its start (seed ${SEED})`,
);
console.log(`machine: ${machine()}\n`);
const started = Date.now();
let kills = 0;
let finished = 0;
let violations = 0;
let strays = 0;
newPlannedTask();
try {
  while (kills < KILLS) {
    const child = spawn(process.execPath, [BIN, "implement", String(task), "--script", agent], {
      cwd: dir,
      stdio: "ignore",
      env,
    });
    const delay = 30 + Math.floor(random() * WINDOW_MS);
    const exited = new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
    const outcome = await Promise.race([exited, new Promise((r) => setTimeout(() => r(null), delay))]);
    if (outcome === null) {
      child.kill("SIGKILL");
      await exited;
      kills++;
    } else finished++;
    baton("recover");
    const open = uncommittedCompletedPhases();
    const stray = [...tracked().filter((p) => STRAY.test(p)), ...leftInTree()];
    if (open.length > 0) {
      violations += open.length;
      console.log(`  after kill ${kills}: completed but uncommitted: ${open.join(", ")}`);
    }
    if (stray.length > 0) {
      strays += stray.length;
      console.log(`  after kill ${kills}: stray files: ${stray.join(", ")}`);
    }
    const state = JSON.parse(readFileSync(join(dir, "specs", "state.json"), "utf8"));
    const current = state.active_projects.find((t) => t.project_number === task);
    if (current?.status === "completed") newPlannedTask();
  }
  const verify = baton("verify", "--json");
  const report = JSON.parse(verify.stdout || "{}");
  const seconds = ((Date.now() - started) / 1000).toFixed(0);
  console.log(
    `kills: ${kills}, runs that finished before their kill: ${finished}, tasks completed: ${task - 1}`,
  );
  console.log(
    `completed-but-uncommitted phases: ${violations} (target 0: ${violations === 0 ? "PASS" : "FAIL"})`,
  );
  console.log(
    `stray files (in git, or left in the tree after recover): ${strays} (target 0: ${strays === 0 ? "PASS" : "FAIL"})`,
  );
  console.log(
    `baton verify: ${report.verified?.length ?? "?"} verified, ${report.phantoms?.length ?? "?"} phantom(s) (exit ${verify.status})`,
  );
  console.log(`${seconds} s`);
  process.exitCode = violations === 0 && strays === 0 && verify.status === 0 ? 0 : 1;
} finally {
  repo.cleanup();
  temp.cleanup();
}
