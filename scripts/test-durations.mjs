#!/usr/bin/env node
// Writes test/support/durations.json from vitest's own record of the last run (node_modules/.vite/vitest/):
// how long each test file took, in whole milliseconds. The suite's sequencer starts the longest files first
// with it on a clone that has never run the tests (CI). Run after a full `npm test` that passed, on the
// machine size CI has (2 cores), and commit the file when the order of the long files moved.
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const cacheRoot = join(root, "node_modules/.vite/vitest");
let results;
try {
  // One folder per configuration vitest has seen; the newest record is the last run's.
  const [newest] = readdirSync(cacheRoot)
    .map((hash) => join(cacheRoot, hash, "results.json"))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  results = JSON.parse(readFileSync(newest, "utf8")).results;
} catch (error) {
  console.error(
    `test-durations: no vitest results under ${cacheRoot} (${error.message}); run npm test first`,
  );
  process.exit(1);
}
const failed = results.filter(([, r]) => r.failed).map(([key]) => key);
if (failed.length > 0) {
  console.error(
    `test-durations: the last run failed in ${failed.join(", ")}; run the whole suite to a pass first`,
  );
  process.exit(1);
}
const durations = Object.fromEntries(
  results
    .map(([key, r]) => [key, Math.round(r.duration)])
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)),
);
const out = join(root, "test/support/durations.json");
writeFileSync(out, `${JSON.stringify(durations, null, 2)}\n`);
console.log(`test-durations: ${Object.keys(durations).length} files → ${out}`);
