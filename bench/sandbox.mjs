// What the agent's sandbox costs per agent start: the same agent process (`node -e 0`, the shape of every
// agent CLI Baton starts) started bare and inside bubblewrap with the policy of a real repository (its store
// folder frozen: one bind per entry), runs interleaved so the machine's noise falls on all; plus the policy's
// own preparation (git's folders). A store of 300 task folders is measured beside a typical one of 40.
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
const large = tempDir("sandbox-large");
/** A repository whose store holds `folders` task folders beside its files. */
function storeWith(dir, folders) {
  mkdirSync(join(dir, "specs", ".baton"), { recursive: true });
  writeFileSync(join(dir, "specs", "state.json"), "{}\n");
  writeFileSync(join(dir, "specs", "TODO.md"), "# TODO\n");
  writeFileSync(join(dir, "specs", "ROAD_MAP.md"), "# Road map\n");
  for (let n = 1; n <= folders; n++)
    mkdirSync(join(dir, "specs", `${n}_task_${n}`, "reports"), { recursive: true });
  execFileSync("git", ["init", "-q"], { cwd: dir });
}
try {
  storeWith(repo.dir, 40);
  storeWith(large.dir, 300);
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
    // fd 3: the sandbox writes its status there (runners/sandbox-run.ts).
    const result = spawnSync(command, args, { cwd: repo.dir, stdio: ["ignore", "ignore", "ignore", "pipe"] });
    if (result.status !== 0) throw new Error(`${command} exited with ${result.status ?? result.signal}`);
    return Number(process.hrtime.bigint() - t0) / 1e6;
  };
  const bare = [];
  const jailed = [];
  const jailedLarge = [];
  const policies = [];
  for (let i = 0; i < WARMUP + RUNS; i++) {
    const t0 = process.hrtime.bigint();
    const policy = await sandboxPolicy(repo.dir, protect, repo.dir, [], ["specs"]);
    const policyMs = Number(process.hrtime.bigint() - t0) / 1e6;
    const wrapped = sandboxed(policy, ...agent);
    const wrappedLarge = sandboxed(
      await sandboxPolicy(large.dir, protect, large.dir, [], ["specs"]),
      ...agent,
    );
    const a = start(...agent);
    const b = start(wrapped.command, wrapped.args);
    const c = start(wrappedLarge.command, wrappedLarge.args);
    if (i < WARMUP) continue;
    bare.push(a);
    jailed.push(b);
    jailedLarge.push(c);
    policies.push(policyMs);
  }
  const cost = median(jailed) - median(bare) + median(policies);
  console.log(
    table([
      ["start", "median ms", "p90 ms"],
      ["agent, bare", median(bare).toFixed(2), percentile(bare, 90).toFixed(2)],
      [
        "agent, in the sandbox (40 task folders)",
        median(jailed).toFixed(2),
        percentile(jailed, 90).toFixed(2),
      ],
      [
        "agent, in the sandbox (300 task folders)",
        median(jailedLarge).toFixed(2),
        percentile(jailedLarge, 90).toFixed(2),
      ],
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
  large.cleanup();
}
