// Crash loop: `baton implement` killed with SIGKILL at random moments, again and again, on a real git
// repository with scripted phase agents. After each kill `baton recover` runs, then the invariants are
// checked: no phase is [COMPLETED] in a plan without its commit, and no stray file (temp files of atomic
// writes, return metadata, markers, a lock, a journal, a checkpoint) is tracked by git or left in
// the tree, nor a killed run's private agent files in its temp dir; the index equals HEAD (a person's next
// `git commit` takes nothing of Baton's), no committed file is missing from the tree, and no run meets its
// own leftovers (MERGE_CONFLICT or MERGE_REFUSED). Every other run isolates its phases in worktrees (`--isolate worktree`), so the
// kills land in a phase's stage into the main tree, its commit and its merge too. Then `baton init` is killed at
// random moments, and `--uninstall` must leave nothing of it. At the end `baton verify` must pass on the whole history.
// Usage: node bench/crash-loop.mjs [--kills 1000] [--quick]
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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

/**
 * `baton init` killed at random moments in a repository of its own, each time followed by `baton init --uninstall`:
 * whatever a killed init wrote (its temp files among them) must be gone. Returns the files left.
 */
async function initKills(count) {
  const own = tempDir("crash-init");
  const at = own.dir;
  execFileSync("git", ["init", "-q"], { cwd: at });
  const left = [];
  for (let i = 0; i < count; i++) {
    const child = spawn(process.execPath, [BIN, "init"], { cwd: at, stdio: "ignore", env });
    const exited = new Promise((resolve) => child.once("exit", resolve));
    const delay = 20 + Math.floor(random() * 600);
    const outcome = await Promise.race([exited, new Promise((r) => setTimeout(() => r("late"), delay))]);
    if (outcome === "late") child.kill("SIGKILL");
    await exited;
    spawnSync(process.execPath, [BIN, "init", "--uninstall"], { cwd: at, env });
    const found = [];
    const walk = (d) => {
      for (const entry of readdirSync(d, { withFileTypes: true })) {
        if (entry.name === ".git") continue;
        const path = join(d, entry.name);
        if (entry.isDirectory()) walk(path);
        else found.push(path.slice(at.length + 1));
      }
    };
    walk(at);
    if (found.length > 0) {
      left.push(...found);
      console.log(`  init kill ${i + 1}: left after --uninstall: ${found.join(", ")}`);
      for (const path of found) rmSync(join(at, path), { force: true });
    }
  }
  own.cleanup();
  return { kills: count, left };
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
let indexDrift = 0;
let missing = 0;
let ownConflicts = 0;
let branches = 0;
newPlannedTask();
try {
  while (kills < KILLS) {
    const isolate = (kills + finished) % 2 === 1 ? ["--isolate", "worktree"] : [];
    const child = spawn(process.execPath, [BIN, "implement", String(task), "--script", agent, ...isolate], {
      cwd: dir,
      stdio: ["ignore", "pipe", "pipe"],
      env,
    });
    let said = "";
    child.stdout.on("data", (c) => (said += c));
    child.stderr.on("data", (c) => (said += c));
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
    const staged = git("diff", "--cached", "--name-status").trim();
    if (staged) {
      indexDrift++;
      console.log(`  after kill ${kills}: the index differs from HEAD: ${staged.replace(/\n/g, ", ")}`);
    }
    const gone = git("diff", "--name-only", "--diff-filter=D").trim();
    if (gone) {
      missing++;
      console.log(
        `  after kill ${kills}: committed files missing from the tree: ${gone.replace(/\n/g, ", ")}`,
      );
    }
    if (/MERGE_CONFLICT|MERGE_REFUSED/.test(said)) {
      ownConflicts++;
      console.log(
        `  after kill ${kills}: a run met its own leftovers: ${said.split("\n").find((l) => /MERGE_CONFLICT|MERGE_REFUSED/.test(l))}`,
      );
    }
    branches = Math.max(branches, git("branch", "--list", "baton/*").split("\n").filter(Boolean).length);
    const state = JSON.parse(readFileSync(join(dir, "specs", "state.json"), "utf8"));
    const current = state.active_projects.find((t) => t.project_number === task);
    if (current?.status === "completed") newPlannedTask();
  }
  const initLeft = await initKills(Math.max(10, Math.round(KILLS / 10)));
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
    `index differing from HEAD after recover: ${indexDrift} (target 0: ${indexDrift === 0 ? "PASS" : "FAIL"})`,
  );
  console.log(
    `committed files missing from the tree after recover: ${missing} (target 0: ${missing === 0 ? "PASS" : "FAIL"})`,
  );
  console.log(
    `runs that met their own leftovers (MERGE_CONFLICT/REFUSED): ${ownConflicts} (target 0: ${ownConflicts === 0 ? "PASS" : "FAIL"})`,
  );
  console.log(`most baton/* branches at once after recover: ${branches}`);
  console.log(
    `baton init killed ${initLeft.kills} times: files left after --uninstall: ${initLeft.left.length} (target 0: ${initLeft.left.length === 0 ? "PASS" : "FAIL"})`,
  );
  console.log(
    `baton verify: ${report.verified?.length ?? "?"} verified, ${report.phantoms?.length ?? "?"} phantom(s) (exit ${verify.status})`,
  );
  console.log(`${seconds} s`);
  const clean = violations + strays + indexDrift + missing + ownConflicts + initLeft.left.length === 0;
  process.exitCode = clean && verify.status === 0 ? 0 : 1;
} finally {
  repo.cleanup();
  temp.cleanup();
}
