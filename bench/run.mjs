// `npm run bench` (full) or `npm run bench -- --quick` (smaller sizes, for a smoke run). Each
// benchmark runs in its own process so one's memory and open files cannot skew the other.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { machine, QUICK } from "./common.mjs";

const BENCHES = [
  "concurrency.mjs",
  "scale.mjs",
  "waves.mjs",
  "hooks.mjs",
  "sandbox.mjs",
  "checks.mjs",
  "lint.mjs",
  "evidence.mjs",
  "verify-history.mjs",
  "ui.mjs",
  "queue.mjs",
  "mcp.mjs",
  "crash-loop.mjs",
];
const extra = QUICK ? ["--quick"] : [];

console.log(`Baton benchmarks${QUICK ? " (quick)" : ""} on ${machine()}\n`);
let failed = 0;
for (const file of BENCHES) {
  const result = spawnSync(process.execPath, [join(import.meta.dirname, file), ...extra], {
    stdio: "inherit",
  });
  if (result.status !== 0) {
    failed++;
    console.log(`${file} exited with ${result.status ?? result.signal}`);
  }
  console.log();
}
process.exitCode = failed > 0 ? 1 : 0;
