// What Baton adds to a project's check: the same `npm test` (node's test runner, 500 tests in 25 files) run
// bare, and run as GATE OUT runs it — in the verdict tree (a clean checkout of the baseline commit with the
// agent's code, made and removed each time) and Baton's sandbox, the runner asked for its JUnit report, the
// counts read and held to the baseline's by test identity (measured once, before the timed runs, and read from
// its cache after). Also what each part costs alone (the sandbox; the verdict tree's checkout), and the case
// where the agent changed a test too (its own tree then runs the checks a second time). Runs interleaved so
// the machine's noise falls on all of them.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DIST_INDEX, machine, median, numberFlag, QUICK, table, tempDir } from "./common.mjs";

const RUNS = numberFlag("runs", QUICK ? 3 : 7);
const FILES = 25;
const PER_FILE = 20;
const TARGET = 1.3;

console.log(
  `# Checks: median of ${RUNS} interleaved runs of \`npm test\` (${FILES * PER_FILE} node:test tests)`,
);
console.log(`machine: ${machine()}\n`);

const { CHECK_GATES, planVerdictTree, runGateOut, withVerdictTree } = await import(DIST_INDEX);
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
  // The verdict tree alone: planned, checked out, filled and removed, nothing run in it.
  const checkout = async () => {
    const start = performance.now();
    const plan = await planVerdictTree({ root: dir, storePrefix: "specs", commit }, [check], "");
    await withVerdictTree(dir, plan, async () => null);
    return performance.now() - start;
  };
  // The agent changed a test too: the verdict tree runs the baseline's, its own tree runs its own.
  const withTest = async () => {
    writeFileSync(
      join(dir, "test", "extra.test.js"),
      'import { test } from "node:test";\ntest("extra", () => {});\n',
    );
    try {
      return await gated();
    } finally {
      execFileSync("rm", ["-f", join(dir, "test", "extra.test.js")]);
    }
  };
  // The baseline's counts are measured here once; every timed run reads them from the cache.
  await gated();
  bare();
  const times = { bare: [], boxed: [], checkout: [], gated: [], twice: [] };
  for (let i = 0; i < RUNS; i++) {
    times.bare.push(bare());
    times.boxed.push(boxed());
    times.checkout.push(await checkout());
    times.gated.push(await gated());
    times.twice.push(await withTest());
  }
  const a = median(times.bare);
  const box = median(times.boxed);
  const tree = median(times.checkout);
  const b = median(times.gated);
  const two = median(times.twice);
  console.log(
    table([
      ["path", "median ms"],
      ["npm test, bare", a.toFixed(0)],
      ["npm test in bubblewrap (the checks' sandbox, nothing else)", box.toFixed(0)],
      ["the verdict tree alone (plan, checkout, fill, remove)", tree.toFixed(0)],
      ["npm test as GATE OUT runs it (verdict tree, sandbox, report, counts)", b.toFixed(0)],
      ["the same where the agent added a test (the agent's tree runs it again)", two.toFixed(0)],
    ]),
  );
  const ratio = b / a;
  console.log(
    `\ncounted: ${counts ? `${counts.tests} tests, ${counts.passed} passed` : "nothing"}; Baton's checks cost ${ratio.toFixed(3)}x the bare check (target <= ${TARGET}: ${ratio <= TARGET ? "PASS" : "FAIL"})`,
  );
  console.log(
    `the sandbox alone: ${(box / a).toFixed(3)}x the bare check; the verdict tree's checkout alone: ${(tree / a).toFixed(3)}x`,
  );
  console.log(
    `where the agent changed the test side too (two runs): ${(two / a).toFixed(3)}x the bare check`,
  );
  console.log("PASS/FAIL is informational; the benchmark exits non-zero only when a check fails to run.");
} finally {
  repo.cleanup();
}
