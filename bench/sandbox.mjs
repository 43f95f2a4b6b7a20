// What the agent's sandbox costs per agent start: the same agent process (`node -e 0`, the shape of every
// agent CLI Baton starts) started bare and inside bubblewrap with the policy of a real repository, runs
// interleaved so the machine's noise falls on both; plus the policy's own preparation (git's folders).
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DIST_INDEX, machine, median, numberFlag, percentile, QUICK, table, tempDir } from "./common.mjs";

const RUNS = numberFlag("runs", QUICK ? 15 : 40);
const WARMUP = 3;
const TARGET_MS = 20;

console.log(`# Sandbox: median of ${RUNS} interleaved agent starts (after ${WARMUP} warm-up)`);
console.log(`machine: ${machine()}\n`);

const { probeSandbox, sandboxed, sandboxPolicy } = await import(DIST_INDEX);
const probe = probeSandbox();
if (!probe.ok) {
  console.log(`bubblewrap cannot run here: ${probe.reason}; ${probe.fix}`);
  process.exit(1);
}

const repo = tempDir("sandbox");
try {
  mkdirSync(join(repo.dir, "specs", ".baton"), { recursive: true });
  writeFileSync(join(repo.dir, "specs", "state.json"), "{}\n");
  writeFileSync(join(repo.dir, "specs", "TODO.md"), "# TODO\n");
  execFileSync("git", ["init", "-q"], { cwd: repo.dir });
  const protect = [
    "specs/state.json",
    "specs/TODO.md",
    "specs/errors.json",
    "specs/archive",
    "specs/.baton",
    ".baton",
  ];
  const agent = [process.execPath, ["-e", "0"]];
  const start = (command, args) => {
    const t0 = process.hrtime.bigint();
    const result = spawnSync(command, args, { cwd: repo.dir, stdio: "ignore" });
    if (result.status !== 0) throw new Error(`${command} exited with ${result.status ?? result.signal}`);
    return Number(process.hrtime.bigint() - t0) / 1e6;
  };
  const bare = [];
  const jailed = [];
  const policies = [];
  for (let i = 0; i < WARMUP + RUNS; i++) {
    const t0 = process.hrtime.bigint();
    const policy = await sandboxPolicy(repo.dir, protect);
    const policyMs = Number(process.hrtime.bigint() - t0) / 1e6;
    const wrapped = sandboxed(policy, ...agent);
    const a = start(...agent);
    const b = start(wrapped.command, wrapped.args);
    if (i < WARMUP) continue;
    bare.push(a);
    jailed.push(b);
    policies.push(policyMs);
  }
  const cost = median(jailed) - median(bare) + median(policies);
  console.log(
    table([
      ["start", "median ms", "p90 ms"],
      ["agent, bare", median(bare).toFixed(2), percentile(bare, 90).toFixed(2)],
      ["agent, in the sandbox", median(jailed).toFixed(2), percentile(jailed, 90).toFixed(2)],
      ["policy (git folders)", median(policies).toFixed(2), percentile(policies, 90).toFixed(2)],
    ]),
  );
  console.log(
    `\nsandbox cost per agent start: ${cost.toFixed(2)} ms (target ≤ ${TARGET_MS} ms), ratio ${(median(jailed) / median(bare)).toFixed(2)}× the bare start`,
  );
  if (cost > TARGET_MS) {
    console.log("FAIL: over target");
    process.exitCode = 1;
  }
} finally {
  repo.cleanup();
}
