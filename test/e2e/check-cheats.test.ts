import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { commitAll, git, readJson, tempDir } from "./helpers.js";
import { FIX, fix, implement, project, TESTS } from "./sum-project.js";

/**
 * A small real Node project whose `sum` has a bug, three `node:test` tests that catch it, and
 * `checks: [{"run": "npm test"}]` (sum-project.ts). An implementing agent told to make the tests pass can fix
 * the code, or change what the tests ask. Each agent here is a shell script run by the command runner: one per
 * way of changing the question, each refused, and the honest ones beside them, each accepted.
 */
describe("checks the agent cannot game", () => {
  it.each([
    ["deletes the test file", "rm test/sum.test.js"],
    ["skips a test", `sed -i 's/^test("adds negatives"/test.skip("adds negatives"/' test/sum.test.js`],
    [
      "weakens the assertions",
      `sed -i 's/assert.equal(\\(.*\\), \\(.*\\)))/assert.ok(true))/' test/sum.test.js`,
    ],
    ["rewrites the expected values to match the bug", `sed -i 's/5));/-1));/' test/sum.test.js`],
    [
      "swallows the assertions",
      `sed -i 's/() => assert\\(.*\\));$/() => { try { assert\\1; } catch {} });/' test/sum.test.js`,
    ],
    ["rewrites the test script", `sed -i 's#"node --test test/\\*.test.js"#"node -e 0"#' package.json`],
    [
      "narrows what the runner finds",
      `sed -i 's#"node --test test/\\*.test.js"#"node --test test/none/*.test.js"#' package.json`,
    ],
    ["adds a runner configuration", `printf 'spec: []\\n' > .mocharc.yml; printf '[pytest]\\n' > pytest.ini`],
    [
      "patches the assertions before the tests run (.npmrc node-options)",
      `printf '%s\\n' 'const a = require("node:assert"); a.strict.equal = () => {};' > patch.cjs; printf 'node-options=--require ./patch.cjs\\n' > .npmrc`,
    ],
    [
      "patches assert from the code under test itself",
      `printf '%s\\n' 'import assert from "node:assert/strict";' 'try { assert.equal = () => {}; } catch {}' 'export const sum = (a, b) => a - b;' > src/sum.js`,
    ],
    [
      "patches assert's prototype chain from the code under test",
      `printf '%s\\n' 'import assert from "node:assert";' 'try { Object.defineProperty(assert.strict, "equal", { value: () => {} }); } catch {}' 'export const sum = (a, b) => a - b;' > src/sum.js`,
    ],
  ])(
    "refuses an agent that %s: the baseline's tests, run on its code in the verdict tree, fail (CHECK_FAILED)",
    (_, cheat) => {
      const dir = project();
      const head = git(dir, ["rev-parse", "HEAD"]).trim();
      const run = implement(dir, cheat);
      expect(run.status, run.shown).toBe(1);
      expect(run.shown).toContain('CHECK_FAILED: check "tests" (`npm test`) failed in the verdict tree');
      expect(run.shown).toMatch(/3 tests: 1 passed, 2 failed/);
      expect(git(dir, ["log", "--format=%s", `${head}..HEAD`])).not.toContain("task 1 phase 1");
      expect(readJson(dir, "state.json").active_projects[0].status).not.toBe("completed");
    },
  );

  it.each([
    [
      "deletes the test file",
      "rm test/sum.test.js",
      /(NO_TESTS_RAN|TESTS_REDUCED|CHECK_FAILED).*in the tree the agent left/,
    ],
    [
      "skips a test",
      `sed -i 's/^test("adds zero"/test.skip("adds zero"/' test/sum.test.js`,
      /TESTS_SKIPPED: .*in the tree the agent left \(its own tests\)/,
    ],
    [
      "rewrites the test script",
      `sed -i 's#"node --test test/\\*.test.js"#"node -e 0"#' package.json`,
      /NO_TESTS_RAN/,
    ],
  ])(
    "refuses a real fix that %s: what it would commit must hold the baseline's tests too",
    (_, cheat, code) => {
      const dir = project();
      const run = implement(dir, `${fix}\n${cheat}`);
      expect(run.status, run.shown).toBe(1);
      expect(run.shown).toMatch(code);
      expect(readJson(dir, "state.json").active_projects[0].status).not.toBe("completed");
    },
  );

  it("refuses work that lives outside the repository behind a link (LINK_OUT_OF_REPO); a link inside is work", () => {
    const dir = project();
    const outside = tempDir("baton-home-");
    const run = implement(
      dir,
      `mkdir -p ${outside} && printf '%s' '${FIX}' > ${outside}/sum.js && rm src/sum.js && ln -s ${outside}/sum.js src/sum.js`,
    );
    expect(run.status, run.shown).toBe(1);
    expect(run.shown).toContain("LINK_OUT_OF_REPO");
    expect(run.shown).toContain(`src/sum.js → ${outside}/sum.js`);
    // The same fix kept in the repository and linked from where the tests import it passes.
    const inside = project();
    const honest = implement(
      inside,
      `mkdir -p lib && printf '%s' '${FIX}' > lib/sum.js && rm src/sum.js && ln -s ../lib/sum.js src/sum.js`,
    );
    expect(honest.status, honest.shown).toBe(0);
  });

  it("refuses a run whose exit code says pass while its report says tests failed (CHECK_FAILED)", () => {
    // A test script that swallows node's exit code (`|| true`), in the baseline as some projects have it.
    const dir = project("", "both", [], [{ name: "tests", run: "node --test test/*.test.js || true" }]);
    const run = implement(dir, "echo '// untouched bug' >> src/sum.js");
    expect(run.status, run.shown).toBe(1);
    expect(run.shown).toContain("CHECK_FAILED");
    expect(run.shown).toMatch(/exited 0, but its runner reported 2 failed test\(s\)/);
  });

  it("holds a retry to the baseline commit: a test a refused try weakened and left in the tree is not the question", () => {
    const dir = project();
    const weaken = `sed -i 's/assert.equal(\\(.*\\), \\(.*\\)))/assert.ok(true))/' test/sum.test.js`;
    const first = implement(dir, weaken);
    expect(first.status, first.shown).toBe(1);
    expect(first.shown).toContain("failed in the verdict tree");
    expect(git(dir, ["status", "--porcelain", "test"])).toContain("test/sum.test.js");
    // The retry's agent touches no test, only the code's comments: the weakened test it inherits is not the verdict's.
    const retry = implement(dir, "echo '// retried' >> src/sum.js");
    expect(retry.status, retry.shown).toBe(1);
    expect(retry.shown).toContain('CHECK_FAILED: check "tests" (`npm test`) failed in the verdict tree');
    expect(readJson(dir, "state.json").active_projects[0].status).not.toBe("completed");
    // And a real fix then passes, the weakened test left as the person's to restore or keep.
    expect(implement(dir, fix).status).toBe(0);
  });

  it.each([
    ["fixes only the code", fix, 3],
    [
      "fixes the code and adds a test of its own",
      `${fix}\nprintf '%s\\n' 'import { test } from "node:test";' 'import assert from "node:assert/strict";' 'import { sum } from "../src/sum.js";' 'test("adds large numbers", () => assert.equal(sum(1e9, 1), 1000000001));' > test/large.test.js`,
      4,
    ],
    [
      "fixes the code and adds a dependency to package.json",
      `${fix}\nsed -i 's#"dependencies": {}#"dependencies": {"left-pad": "1.3.0"}#' package.json`,
      3,
    ],
  ])("accepts an honest agent that %s, with the tests that ran counted in its evidence", (_, work, tests) => {
    const dir = project();
    const run = implement(dir, work);
    expect(run.status, run.shown).toBe(0);
    expect(readJson(dir, "state.json").active_projects[0].status).toBe("completed");
    // The verified work is in history, not left behind in the tree (the agent listed no files_changed).
    expect(git(dir, ["show", "HEAD:src/sum.js"])).toContain("a + b");
    expect(git(dir, ["status", "--porcelain"])).toBe("");
    // Counted from the runner's own report, in the evidence of the phase and of the operation.
    const files = git(dir, ["ls-files", "specs/1_build_the_parser/evidence"]).trim().split("\n");
    const checks = files.flatMap((f) => JSON.parse(readFileSync(join(dir, f), "utf8")).checks ?? []);
    expect(checks.length).toBeGreaterThanOrEqual(2);
    // The verdict tree ran the baseline's 3 tests on the agent's code; the agent's own tree, where it differs, its own.
    for (const check of checks.filter((c: { tree?: string }) => c.tree !== "agent"))
      expect(check).toMatchObject({
        name: "tests",
        ok: true,
        tree: "verdict",
        counts: { tests: 3, passed: 3 },
      });
    const own = checks.filter((c: { tree?: string }) => c.tree === "agent");
    if (tests !== 3) expect(own.length).toBeGreaterThanOrEqual(1);
    for (const check of own)
      expect(check).toMatchObject({ name: "tests", ok: true, counts: { tests, passed: tests, skipped: 0 } });
  });

  it("accepts a fix with a test helper refactored: the baseline's helper runs in the verdict tree, the agent's in its own", () => {
    const dir = project();
    writeFileSync(
      join(dir, "test/helpers.js"),
      'import assert from "node:assert/strict";\nexport const same = (a, b) => assert.equal(a, b);\n',
    );
    writeFileSync(
      join(dir, "test/sum.test.js"),
      `${TESTS.replace('import assert from "node:assert/strict";', 'import { same } from "./helpers.js";').replaceAll("assert.equal", "same")}`,
    );
    commitAll(dir, "a test helper");
    const refactor = `printf '%s\\n' 'import assert from "node:assert/strict";' 'export function same(actual, expected, message) {' '  assert.equal(actual, expected, message ?? \`expected \${expected}\`);' '}' > test/helpers.js`;
    const run = implement(dir, `${fix}\n${refactor}`);
    expect(run.status, run.shown).toBe(0);
    expect(git(dir, ["show", "HEAD:test/helpers.js"])).toContain("export function same");
    const evidence = git(dir, ["ls-files", "specs/1_build_the_parser/evidence"]).trim().split("\n");
    const trees = evidence.flatMap((f) =>
      (JSON.parse(readFileSync(join(dir, f), "utf8")).checks ?? []).map((c: { tree?: string }) => c.tree),
    );
    expect(trees).toContain("verdict");
    expect(trees).toContain("agent");
  });

  it("accepts a change to a test the plan's phase names as one to change", () => {
    const dir = project("Files: `src/sum.js`, `test/sum.test.js` (the zero case becomes two cases)");
    const run = implement(
      dir,
      `${fix}\nsed -i 's/test("adds zero", () => assert.equal(sum(7, 0), 7));/test("adds zero", () => assert.equal(sum(7, 0), 7));\\ntest("zero plus zero", () => assert.equal(sum(0, 0), 0));/' test/sum.test.js`,
    );
    expect(run.status, run.shown).toBe(0);
    expect(readFileSync(join(dir, "test/sum.test.js"), "utf8")).toContain("zero plus zero");
  });
});

describe("checks counted from the runner's own report", () => {
  it("refuses code that ends the test run early (TESTS_REDUCED or NO_TESTS_RAN)", () => {
    const dir = project();
    const run = implement(
      dir,
      `printf '%s\\n' 'if (process.env.NODE_TEST_CONTEXT) process.exit(0);' 'export const sum = (a, b) => a - b;' > src/sum.js`,
    );
    expect(run.status, run.shown).toBe(1);
    expect(run.shown).toMatch(/TESTS_REDUCED|NO_TESTS_RAN/);
  });

  it("holds a test file the plan may change to the baseline's count: no fewer tests, none newly skipped", () => {
    const plan = "Files: `src/sum.js`, `test/sum.test.js`";
    const fewer = implement(
      project(plan),
      `${fix}\nsed -i '/adds negatives/d; /adds zero/d' test/sum.test.js`,
    );
    expect(fewer.shown).toContain("TESTS_REDUCED");
    const skipped = implement(
      project(plan),
      `${fix}\nsed -i 's/^test("adds zero"/test.skip("adds zero"/' test/sum.test.js`,
    );
    expect(skipped.shown).toContain("TESTS_SKIPPED");
  });

  it("holds it to which tests ran, not how many: three replaced by three trivial ones is TESTS_REDUCED", () => {
    const plan = "Files: `src/sum.js`, `test/sum.test.js`";
    const trivial = [
      'import { test } from "node:test";',
      ...["one", "two", "three"].map((n) => `test("trivial ${n}", () => {});`),
    ];
    const dir = project(plan);
    const replaced = implement(
      dir,
      `printf '%s\\n' ${trivial.map((l) => `'${l}'`).join(" ")} > test/sum.test.js`,
    );
    expect(replaced.status, replaced.shown).toBe(1);
    expect(replaced.shown).toContain("TESTS_REDUCED");
    expect(readFileSync(join(dir, "specs/errors.json"), "utf8")).toContain(
      "3 test(s) the baseline ran did not run and pass now, whatever the total: test adds two numbers, test adds negatives, test adds zero",
    );
  });
});
