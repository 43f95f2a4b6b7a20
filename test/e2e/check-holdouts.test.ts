import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { holdoutLogPath } from "../../src/shared/baton-paths.js";
import { BATON_BIN } from "../support/cli.js";
import { git, readJson, tempDir } from "./helpers.js";
import { agent, fix, implement, project } from "./sum-project.js";

/** Holdout checks, other report formats, and the checks' sandbox for an ordinary user. */
describe("holdout checks", () => {
  const HIDDEN = `import { test } from "node:test";
import assert from "node:assert/strict";
import { sum } from "../../../src/sum.js";

test("adds other numbers", () => assert.equal(sum(10, 5), 15));
test("adds opposites", () => assert.equal(sum(-1, 1), 0));
`;
  function withHoldout(): { dir: string; holdout: string } {
    const holdout = tempDir("baton-holdout-");
    writeFileSync(join(holdout, "hidden.test.js"), HIDDEN);
    const check = {
      name: "hidden",
      run: 'node --test "$BATON_HOLDOUT_DIR"/*.test.js',
      holdout,
      when: "operation",
    };
    return { dir: project("", "both", [check]), holdout };
  }

  it("refuses a solution that special-cases the visible tests, and its agent never reads the hidden ones", () => {
    const { dir, holdout } = withHoldout();
    const special =
      "export const sum = (a, b) => (a === 2 && b === 3 ? 5 : a === -2 && b === -3 ? -5 : a === 7 && b === 0 ? 7 : a - b);";
    const run = implement(
      dir,
      `cat ${holdout}/hidden.test.js > leaked.txt 2>/dev/null || true\nprintf '%s\\n' '${special}' > src/sum.js`,
    );
    expect(run.status, run.shown).toBe(1);
    expect(run.shown).toContain('check "hidden"');
    expect(run.shown).not.toContain("adds other numbers");
    expect(readFileSync(join(dir, "leaked.txt"), "utf8")).toBe("");
    // Its output is kept for the person beside the key, where no agent's or check's sandbox shows it; nothing of
    // it stays in the repository for the next agent to read.
    expect(readFileSync(holdoutLogPath(dir, "hidden"), "utf8")).toContain("hidden.test.js");
    expect(existsSync(join(dir, ".baton/logs/holdout-hidden.log"))).toBe(false);
    expect(existsSync(join(dir, ".baton/holdout/hidden"))).toBe(false);
  });

  it("hides a holdout's copy from an agent that runs while it exists, and from the visible checks", () => {
    const { dir } = withHoldout();
    // A copy left where the holdout check puts it (as while a concurrent phase's holdout runs).
    mkdirSync(join(dir, ".baton/holdout/hidden"), { recursive: true });
    writeFileSync(join(dir, ".baton/holdout/hidden/hidden.test.js"), HIDDEN);
    const run = implement(
      dir,
      `cat .baton/holdout/hidden/hidden.test.js > leaked.txt 2>/dev/null || true\n${fix}`,
    );
    expect(readFileSync(join(dir, "leaked.txt"), "utf8")).toBe("");
    expect(run.shown).not.toContain("adds other numbers");
  });

  it("catches code that detects its test runner with a holdout that runs it as a plain program", () => {
    const holdout = tempDir("baton-holdout-");
    writeFileSync(
      join(holdout, "plain.mjs"),
      'import { sum } from "../../../src/sum.js";\nif (sum(10, 5) !== 15 || sum(-1, 1) !== 0) { console.error("wrong sum outside a test runner"); process.exit(1); }\n',
    );
    const plain = { name: "plain", run: 'node "$BATON_HOLDOUT_DIR"/plain.mjs', holdout, when: "operation" };
    // Right under node's test runner only: every check run by a runner passes it.
    const detects = "export const sum = (a, b) => (process.env.NODE_TEST_CONTEXT ? a + b : a - b);";
    const cheat = implement(project("", "both", [plain]), `printf '%s\\n' '${detects}' > src/sum.js`);
    expect(cheat.status, cheat.shown).toBe(1);
    expect(cheat.shown).toContain('check "plain"');
    const honest = implement(project("", "both", [plain]), fix);
    expect(honest.status, honest.shown).toBe(0);
  });

  it("accepts the real fix, with the hidden tests counted in the evidence", () => {
    const { dir } = withHoldout();
    const run = implement(dir, fix);
    expect(run.status, run.shown).toBe(0);
    const files = git(dir, ["ls-files", "specs/1_build_the_parser/evidence"]).trim().split("\n");
    const checks = files.flatMap((f) => JSON.parse(readFileSync(join(dir, f), "utf8")).checks ?? []);
    expect(checks).toContainEqual(
      expect.objectContaining({
        name: "hidden",
        ok: true,
        counts: expect.objectContaining({ tests: 2, passed: 2 }),
      }),
    );
  });
});

describe("a check that reports in TAP", () => {
  const tap = [{ name: "tap", run: "node --test --test-reporter=tap test/*.test.js", format: "tap" }];

  it("is counted from its output, and held to the baseline's count", () => {
    const honest = project("", "both", [], tap);
    expect(implement(honest, fix).status).toBe(0);
    const files = git(honest, ["ls-files", "specs/1_build_the_parser/evidence"]).trim().split("\n");
    const checks = files.flatMap((f) => JSON.parse(readFileSync(join(honest, f), "utf8")).checks ?? []);
    expect(checks[0]).toMatchObject({ name: "tap", counts: { tests: 3, passed: 3 } });
    const plan = "Files: `src/sum.js`, `test/sum.test.js`";
    const fewer = implement(
      project(plan, "both", [], tap),
      `${fix}\nsed -i '/adds negatives/d' test/sum.test.js`,
    );
    expect(fewer.shown).toContain("TESTS_REDUCED");
  });
});

/**
 * CI runs as root; people do not. A check runs the agent's code in bubblewrap, which for an ordinary user
 * (`nobody`, through runuser) needs unprivileged user namespaces: the key must stay out of its sight there too,
 * and an honest fix must still pass.
 */
describe.skipIf(process.getuid?.() !== 0)("a check's sandbox for an ordinary user", () => {
  it("keeps the signing key out of the check's reach, and the honest fix passes", () => {
    const out = tempDir("baton-leak-");
    const check = {
      name: "tests",
      run: `cat "$BATON_KEY_DIR"/* > ${out}/leaked.txt 2>/dev/null; node --test test/*.test.js`,
    };
    const dir = project("", "both", [], [check]);
    const home = tempDir("baton-home-");
    agent(dir, fix);
    execFileSync("chown", ["-R", "nobody", dir, home, out]);
    const run = spawnSync("runuser", ["-u", "nobody", "--", process.execPath, BATON_BIN, "implement", "1"], {
      cwd: dir,
      encoding: "utf8",
      env: { ...process.env, HOME: home, BATON_KEY_DIR: join(home, "keys") },
    });
    // Back to root, whose git (and clean-up) refuse a repository another user owns.
    execFileSync("chown", ["-R", "root", dir, home]);
    expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(readdirSync(join(home, "keys")).length).toBeGreaterThan(0);
    expect(readFileSync(join(out, "leaked.txt"), "utf8")).toBe("");
    expect(readJson(dir, "state.json").active_projects[0].status).toBe("completed");
  });
});
