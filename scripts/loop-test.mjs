#!/usr/bin/env node
// Runs one test (a file and a name filter) many times under CPU load, to find a flake and to show a fix
// holds: `node scripts/loop-test.mjs test/e2e/implement-phases.test.ts "runs each phase in its own worktree"
// --runs 200 --load 4 --parallel 2`. Each run is a fresh vitest process, several at once, while busy
// processes keep every core loaded; the failures' output goes to a folder and the tally is printed at the
// end. Exits 1 when any run failed. Needs `npm run build` first (the e2e tests run dist/).
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    runs: { type: "string", default: "200" },
    load: { type: "string", default: String(availableParallelism()) },
    parallel: { type: "string", default: "2" },
  },
});
const [file, name] = positionals;
if (!file) {
  console.error(
    'usage: node scripts/loop-test.mjs <test file> ["test name"] [--runs N] [--load N] [--parallel N]',
  );
  process.exit(2);
}
const runs = Number(values.runs);
const parallel = Number(values.parallel);
const failures = mkdtempSync(join(tmpdir(), "baton-loop-"));

// Busy loops in child processes: the load a full suite puts on the machine, without the suite.
const burners = Array.from({ length: Number(values.load) }, () =>
  spawn(process.execPath, ["-e", "for(;;){}"], { stdio: "ignore" }),
);
const stopBurners = () => {
  for (const b of burners) b.kill("SIGKILL");
};
process.on("exit", stopBurners);
// A signal ends the script through exit, which stops the busy processes: a TERM sent to this process alone left
// them running.
process.on("SIGINT", () => process.exit(130));
process.on("SIGTERM", () => process.exit(143));

function once(index) {
  return new Promise((resolve) => {
    const args = ["vitest", "run", file, ...(name ? ["-t", name] : []), "--reporter=dot"];
    const child = spawn("npx", args, { stdio: ["ignore", "pipe", "pipe"], env: process.env });
    let output = "";
    child.stdout.on("data", (c) => (output += c));
    child.stderr.on("data", (c) => (output += c));
    child.on("close", (code) => {
      if (code !== 0) writeFileSync(join(failures, `run-${index}.log`), output);
      resolve(code === 0);
    });
  });
}

let next = 0;
let failed = 0;
const started = Date.now();
async function worker() {
  while (next < runs) {
    const index = next++;
    const passed = await once(index);
    if (!passed) failed++;
    process.stdout.write(passed ? "." : "F");
    if ((index + 1) % 50 === 0) process.stdout.write(` ${index + 1}\n`);
  }
}
await Promise.all(Array.from({ length: parallel }, worker));
stopBurners();
const seconds = Math.round((Date.now() - started) / 1000);
console.log(`\n${runs - failed} passed, ${failed} failed (${runs} runs, ${seconds} s, load ${values.load})`);
if (failed > 0) console.log(`failed runs' output: ${failures}`);
process.exit(failed > 0 ? 1 : 0);
