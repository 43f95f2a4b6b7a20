// `baton lint` on the real 298-file proofchecker `.claude/` tree (plus its specs/ for state/doctor):
// wall time of the whole CLI process, and the in-process time lint itself reports (config, one read of
// the tree, one `git ls-files`, every rule). Target: the whole tree in under 1 s.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { BIN, machine, median, numberFlag, percentile, QUICK, ROOT, table } from "./common.mjs";

const RUNS = numberFlag("runs", QUICK ? 5 : 15);
const WARMUP = 2;
const TARGET_MS = 1000;
const FIXTURE = join(ROOT, "..", "shared", "fixtures", "proofchecker");

console.log(`# Lint: median of ${RUNS} runs (after ${WARMUP} warm-up)`);
console.log(`machine: ${machine()}\n`);

if (!existsSync(join(FIXTURE, ".claude"))) {
  console.log(`skipped: the proofchecker fixture is not at ${FIXTURE}`);
} else {
  const wall = [];
  const inProcess = [];
  let last;
  for (let i = 0; i < WARMUP + RUNS; i++) {
    const started = performance.now();
    // Exit 1 is expected: the fixture has errors; only a crash (2, or no JSON) is a failure here.
    const run = spawnSync(process.execPath, [BIN, "lint", FIXTURE, "--json"], { encoding: "utf8" });
    const elapsed = performance.now() - started;
    if (run.status !== 0 && run.status !== 1)
      throw new Error(`baton lint failed (${run.status}): ${run.stderr}`);
    last = JSON.parse(run.stdout);
    if (i < WARMUP) continue;
    wall.push(elapsed);
    inProcess.push(last.durationMs);
  }
  const fmt = (ms) => `${ms.toFixed(0)} ms`;
  console.log(
    table([
      ["measure", "median", "p90"],
      ["baton lint (process wall time)", fmt(median(wall)), fmt(percentile(wall, 90))],
      ["lint() in process", fmt(median(inProcess)), fmt(percentile(inProcess, 90))],
    ]),
  );
  console.log(`\n${last.files} files, ${last.rules} rules, ${last.errors} errors, ${last.warnings} warnings`);
  const ok = median(wall) < TARGET_MS;
  console.log(`target: whole tree under ${TARGET_MS} ms wall → ${ok ? "met" : "MISSED"}`);
  if (!ok) process.exitCode = 1;
}
