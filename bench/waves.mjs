// Plan execution overhead: a 12-phase plan in 3 waves of 4, each phase agent taking 1 s through the
// scripted runner (a real child process per phase). Wall time of `baton implement` is set beside the
// critical-path ideal (3 waves × 1 s) and beside the same plan run one phase at a time, in one run.
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { machine, median, numberFlag, QUICK, ROOT, runBaton, table, tempDir } from "./common.mjs";

const { generatePlan, layeredPlanPhases, phaseScriptSteps } = await import(
  pathToFileURL(join(ROOT, "dist", "testing", "generate-plan.js")).href
);

const WAVES = 3;
const WIDTH = 4;
const PHASE_MS = numberFlag("phase-ms", 1000);
const RUNS = numberFlag("runs", QUICK ? 1 : 3);
const TARGET = 1.25;

function git(cwd, args) {
  execFileSync("git", args, { cwd, stdio: "ignore" });
}

/** A fresh repository with task 1 planned; returns the repository and the phase agent's script. */
function plannedRepo() {
  const temp = tempDir("waves");
  const dir = temp.dir;
  git(dir, ["init", "-q", "-b", "main"]);
  git(dir, ["config", "user.email", "bench@example.com"]);
  git(dir, ["config", "user.name", "Bench"]);
  for (const args of [
    ["task", "add", "Build the parser", "-l", "general"],
    ["task", "status", "1", "planned", "--force"],
  ]) {
    const result = runBaton(dir, args);
    if (result.status !== 0) throw new Error(`baton ${args.join(" ")}: ${result.stderr}`);
  }
  const folder = join(dir, "specs", "1_build_the_parser", "plans");
  mkdirSync(folder, { recursive: true });
  const phases = layeredPlanPhases(WAVES, WIDTH);
  writeFileSync(
    join(folder, "implementation-001.md"),
    generatePlan({ style: "task", taskNumber: 1, title: "Build the parser", phases }),
  );
  git(dir, ["add", "-A"]);
  git(dir, ["commit", "-qm", "planned"]);
  const script = join(dir, ".git", "phase-agent.json");
  writeFileSync(
    script,
    JSON.stringify({ phases: { "*": { steps: phaseScriptSteps({ sleepMs: PHASE_MS }) } } }),
  );
  return { dir, script, cleanup: temp.cleanup };
}

function implement(concurrency) {
  const { dir, script, cleanup } = plannedRepo();
  try {
    const result = runBaton(dir, [
      "implement",
      "1",
      "--script",
      script,
      "--concurrency",
      String(concurrency),
      "--json",
    ]);
    const report = JSON.parse(result.stdout);
    const complete = report.plan.phases.filter((p) => p.record?.verdict.kind === "complete").length;
    if (complete !== WAVES * WIDTH) throw new Error(`only ${complete} phases completed:\n${result.stdout}`);
    return result.ms;
  } finally {
    cleanup();
  }
}

/**
 * The agents alone: the same scripted-agent child (a 1 s sleep and a file write), 4 at a time, 3 waves,
 * spawned directly with no Baton around them. What is left above this is Baton's own cost.
 */
async function agentFloor() {
  const entry = join(ROOT, "dist", "runners", "scripted-agent.js");
  const temp = tempDir("waves-floor");
  const plan = (k) =>
    JSON.stringify({
      steps: [
        { op: "sleep", ms: PHASE_MS },
        { op: "write", path: join(temp.dir, `phase-${k}.md`), content: "x".repeat(300), label: "summary" },
      ],
    });
  const start = performance.now();
  for (let w = 0; w < WAVES; w++) {
    await Promise.all(
      Array.from(
        { length: WIDTH },
        (_, k) =>
          new Promise((resolve, reject) => {
            const child = spawn(process.execPath, [entry], { stdio: ["pipe", "ignore", "inherit"] });
            child.on("error", reject);
            child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`agent exited ${code}`))));
            child.stdin.end(plan(w * WIDTH + k));
          }),
      ),
    );
  }
  const ms = performance.now() - start;
  temp.cleanup();
  return ms;
}

console.log(
  `# Waves: ${WAVES} waves × ${WIDTH} phases, ${PHASE_MS} ms per phase agent, median of ${RUNS} run(s)\n# ${machine()}\n`,
);
const ideal = WAVES * PHASE_MS;
const sequentialIdeal = WAVES * WIDTH * PHASE_MS;
const parallel = [];
const sequential = [];
const floors = [];
for (let i = 0; i < RUNS; i++) {
  floors.push(await agentFloor());
  parallel.push(implement(WIDTH));
  sequential.push(implement(1));
}
const p = median(parallel);
const s = median(sequential);
const f = median(floors);
console.log(
  table([
    ["run", "wall ms", "ideal ms", "× ideal"],
    [`agents alone, ${WIDTH} at a time (no Baton)`, f.toFixed(0), ideal, (f / ideal).toFixed(2)],
    [`baton implement --concurrency ${WIDTH}`, p.toFixed(0), ideal, (p / ideal).toFixed(2)],
    ["baton implement --concurrency 1", s.toFixed(0), sequentialIdeal, (s / sequentialIdeal).toFixed(2)],
  ]),
);
const ratio = p / ideal;
console.log(
  `\nWaves vs critical-path ideal: ${ratio.toFixed(2)}× (target ≤ ${TARGET}×) ${ratio <= TARGET ? "MET" : "MISSED"}; waves vs sequential: ${(s / p).toFixed(2)}× faster`,
);
console.log(
  `Baton's own cost above the agents alone: ${(p - f).toFixed(0)} ms in all (${((p - f) / WAVES).toFixed(0)} ms per wave: start-up, GATE IN/OUT, markers, barriers, one commit per phase)`,
);
