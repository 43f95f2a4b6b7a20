// What Baton adds to a project's check: the same `npm test` (node's test runner, 500 tests in 25 files) run
// bare, and run as GATE OUT runs it — the check inputs compared with the baseline first, the runner asked
// for its JUnit report, the counts read and held to the baseline's (measured once, before the timed runs,
// and read from its cache after). Runs interleaved so the machine's noise falls on both.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DIST_INDEX, machine, median, numberFlag, QUICK, table, tempDir } from "./common.mjs";

const RUNS = numberFlag("runs", QUICK ? 3 : 7);
const FILES = 25;
const PER_FILE = 20;
const TARGET = 1.05;

console.log(
  `# Checks: median of ${RUNS} interleaved runs of \`npm test\` (${FILES * PER_FILE} node:test tests)`,
);
console.log(`machine: ${machine()}\n`);

const { CHECK_GATES, runGateOut } = await import(DIST_INDEX);
const repo = tempDir("checks");
const git = (...args) => execFileSync("git", args, { cwd: repo.dir, encoding: "utf8" }).trim();
try {
  const dir = repo.dir;
  mkdirSync(join(dir, "src"));
  mkdirSync(join(dir, "test"));
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({ name: "bench", type: "module", scripts: { test: "node --test test/*.test.js" } }),
  );
  writeFileSync(join(dir, "src", "lib.js"), "export const twice = (n) => n * 2;\n");
  for (let f = 0; f < FILES; f++) {
    const tests = Array.from(
      { length: PER_FILE },
      (_, i) => `test("twice ${f}.${i}", () => assert.equal(twice(${i}), ${i * 2}));`,
    );
    writeFileSync(
      join(dir, "test", `lib-${f}.test.js`),
      `import { test } from "node:test";\nimport assert from "node:assert/strict";\nimport { twice } from "../src/lib.js";\n${tests.join("\n")}\n`,
    );
  }
  git("init", "-q");
  git("add", "-A");
  git("-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "baseline");
  const commit = git("rev-parse", "HEAD");
  // The agent's work: a change to the code the tests test.
  writeFileSync(join(dir, "src", "lib.js"), "// doubled\nexport const twice = (n) => n + n;\n");

  const check = {
    name: "tests",
    run: "npm test",
    timeoutMs: 600_000,
    languages: null,
    when: "both",
    report: null,
    format: "junit",
    holdout: null,
  };
  const input = {
    operation: "implement",
    sessionId: "sess_bench",
    repoRoot: dir,
    taskFolder: join(dir, "specs", "1_bench"),
    metadataPath: join(dir, "specs", "1_bench", ".return-meta.json"),
    agentOutput: "",
    minArtifactBytes: 0,
    baseline: { commit, dirty: {} },
    storePrefix: "specs",
    checks: [check],
  };
  const changes = (ctx) => {
    ctx.changes = { base: commit, files: ["src/lib.js"], unlisted: [] };
    ctx.metadata = { status: "implemented", summary: "bench", artifacts: [] };
    return { ok: true };
  };
  const bare = () => {
    const start = performance.now();
    const run = spawnSync("sh", ["-c", "npm test"], { cwd: dir, stdio: "ignore" });
    if (run.status !== 0) throw new Error("npm test failed");
    return performance.now() - start;
  };
  // The sandbox alone, as a check gets it (bubblewrap over the whole file system, git's folder read-only, its own
  // PID namespace): what of the gated figure is the sandbox's start and teardown.
  const boxed = () => {
    const start = performance.now();
    const args = ["--dev-bind", "/", "/", "--ro-bind", join(dir, ".git"), join(dir, ".git")];
    args.push("--unshare-pid", "--die-with-parent", "--proc", "/proc", "--", "sh", "-c", "npm test");
    const run = spawnSync("bwrap", args, { cwd: dir, stdio: "ignore" });
    if (run.status !== 0) throw new Error("npm test in bubblewrap failed");
    return performance.now() - start;
  };
  let counts = null;
  const gated = async () => {
    const start = performance.now();
    const verdict = await runGateOut(input, [changes, ...CHECK_GATES]);
    if (!verdict.ok) throw new Error(`${verdict.code}: ${verdict.message}`);
    counts = verdict.checkRuns?.[0]?.counts ?? counts;
    return performance.now() - start;
  };
  // The baseline's counts are measured here once; every timed run reads them from the cache.
  await gated();
  bare();
  const times = { bare: [], boxed: [], gated: [] };
  for (let i = 0; i < RUNS; i++) {
    times.bare.push(bare());
    times.boxed.push(boxed());
    times.gated.push(await gated());
  }
  const a = median(times.bare);
  const box = median(times.boxed);
  const b = median(times.gated);
  console.log(
    table([
      ["path", "median ms"],
      ["npm test, bare", a.toFixed(0)],
      ["npm test in bubblewrap (the checks' sandbox, nothing else)", box.toFixed(0)],
      ["npm test as GATE OUT runs it (sandbox, inputs, report, counts)", b.toFixed(0)],
    ]),
  );
  const ratio = b / a;
  console.log(
    `\ncounted: ${counts ? `${counts.tests} tests, ${counts.passed} passed` : "nothing"}; Baton's checks cost ${ratio.toFixed(3)}x the bare check (target <= ${TARGET}: ${ratio <= TARGET ? "PASS" : "FAIL"})`,
  );
  console.log(`the sandbox alone: ${(box / a).toFixed(3)}x the bare check`);
  console.log("PASS/FAIL is informational; the benchmark exits non-zero only when a check fails to run.");
} finally {
  repo.cleanup();
}
