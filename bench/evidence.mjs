// Cost of Baton's own work at a barrier on a large repository: the baseline GATE IN takes, the diff since
// it (changedSince), and the evidence hashes of an artifact — measured side by side with a bare
// `git diff --stat` in the same run, on a repository of 10,000 tracked files (--files N for another size).
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { machine, median, numberFlag, QUICK, ROOT, table, tempDir } from "./common.mjs";

const FILES = numberFlag("files", 10_000);
const RUNS = numberFlag("runs", QUICK ? 9 : 25);
const TARGET_MS = 50;
const { changedSince, readBaseline, sha256Of } = await import(
  pathToFileURL(join(ROOT, "dist", "index.js")).href
);

console.log(`# Evidence at a barrier: ${FILES} tracked files, median of ${RUNS} runs`);
console.log(`machine: ${machine()}\n`);
const repo = tempDir("evidence");
const dir = repo.dir;
try {
  const git = (...args) => execFileSync("git", args, { cwd: dir, encoding: "utf8", maxBuffer: 1 << 28 });
  git("init", "-q");
  for (let i = 0; i < FILES; i++) {
    const sub = join(dir, "src", `m${i % 100}`);
    if (i < 100) mkdirSync(sub, { recursive: true });
    writeFileSync(join(sub, `f${i}.ts`), `export const v${i} = ${i};\n`);
  }
  mkdirSync(join(dir, "specs", "1_task", "reports"), { recursive: true });
  writeFileSync(join(dir, "specs", "1_task", "reports", "research-001.md"), "# Report\n".repeat(200));
  git("add", "-A");
  git("-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "base");
  // A person's work in progress, dirty before the run: the baseline records it.
  for (let i = 0; i < 20; i++)
    writeFileSync(join(dir, "src", `m${i}`, `f${i}.ts`), `export const v${i} = -1;\n`);

  const bare = [];
  const baseline = [];
  const diff = [];
  const hashes = [];
  let changed = [];
  for (let run = 0; run < RUNS + 2; run++) {
    let t = performance.now();
    spawnSync("git", ["diff", "--stat", "HEAD"], { cwd: dir, encoding: "utf8", maxBuffer: 1 << 28 });
    const bareMs = performance.now() - t;
    t = performance.now();
    const base = await readBaseline(dir);
    const baselineMs = performance.now() - t;
    // The agent's work: five files changed, one added.
    for (let i = 0; i < 5; i++)
      writeFileSync(join(dir, "src", `m${50 + i}`, `f${50 + i}.ts`), `// run ${run}\n`);
    writeFileSync(join(dir, "src", `new-${run}.ts`), "export {};\n");
    t = performance.now();
    changed = await changedSince(dir, base, (p) => p.startsWith("specs/"));
    const diffMs = performance.now() - t;
    t = performance.now();
    sha256Of(readFileSync(join(dir, "specs", "1_task", "reports", "research-001.md")));
    const hashMs = performance.now() - t;
    if (run >= 2) {
      bare.push(bareMs);
      baseline.push(baselineMs);
      diff.push(diffMs);
      hashes.push(hashMs);
    }
  }
  // At a barrier Baton diffs against the baseline and hashes the artifacts; the baseline itself is taken
  // once, at GATE IN (or a phase's first call).
  const own = median(diff) + median(hashes);
  console.log(
    table([
      ["step", "median ms"],
      ["git diff --stat HEAD (bare, for scale)", median(bare).toFixed(1)],
      ["baseline at GATE IN (git status + ids of dirty files)", median(baseline).toFixed(1)],
      ["diff since the baseline (changedSince)", median(diff).toFixed(1)],
      ["artifact hashes for the evidence", median(hashes).toFixed(1)],
      ["Baton's own cost per barrier (diff + hashes)", own.toFixed(1)],
    ]),
  );
  console.log(
    `\nper barrier: ${own.toFixed(1)} ms, ${(own / median(bare)).toFixed(2)}x a bare git diff --stat (target <= ${TARGET_MS} ms: ${own <= TARGET_MS ? "PASS" : "FAIL"})`,
  );
  console.log(`changed files found in the last run: ${changed.length} (the agent changed 5 and added 1)`);
} finally {
  repo.cleanup();
}
