import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { layeredPlanPhases } from "../../src/testing/generate-plan.js";
import { requireUnderCi } from "../../src/testing/requirements.js";
import { commitAll, git, plannedTaskRepo, readJson, runBaton, tempDir } from "./helpers.js";

/**
 * The same questions on a Python project whose runner, pytest, writes a JUnit report: Baton asks for it
 * through PYTEST_ADDOPTS and counts what ran.
 */
const pytest = spawnSync("python3", ["-c", "import pytest"]).status === 0;
requireUnderCi("pytest (Debian package python3-pytest)", pytest ? null : "python3 -c 'import pytest' failed");

const TESTS = `from sum import total


def test_adds():
    assert total(2, 3) == 5


def test_negatives():
    assert total(-2, -3) == -5


def test_zero():
    assert total(7, 0) == 7
`;

function project(run = "PYTHONDONTWRITEBYTECODE=1 python3 -m pytest -q -p no:cacheprovider tests"): string {
  const dir = plannedTaskRepo(layeredPlanPhases(1, 1), {
    checks: [{ name: "pytest", run }],
    phases: { maxIterations: 1 },
  });
  writeFileSync(join(dir, "sum.py"), "def total(a, b):\n    return a - b\n");
  writeFileSync(join(dir, "pytest.ini"), "[pytest]\npythonpath = .\n");
  writeTests(dir);
  const config = JSON.parse(readFileSync(join(dir, "baton.config.json"), "utf8"));
  config.runner = { type: "command", command: "sh", args: [join(dir, ".git", "agent.sh")] };
  writeFileSync(join(dir, "baton.config.json"), JSON.stringify(config));
  commitAll(dir, "a sum with a bug, and its tests");
  return dir;
}

function writeTests(dir: string): void {
  mkdirSync(join(dir, "tests"));
  writeFileSync(join(dir, "tests", "test_sum.py"), TESTS);
}

function implement(dir: string, work: string, env: NodeJS.ProcessEnv = {}) {
  const metadata = `{"status":"implemented","summary":"Phase implemented","artifacts":[{"type":"summary","path":"SUMMARY"}],"metadata":{"session_id":"SESSION","agent_type":"shell"}}`;
  writeFileSync(
    join(dir, ".git", "agent.sh"),
    [
      "set -e",
      work,
      `mkdir -p "$(dirname "$BATON_SUMMARY_FILE")"`,
      `printf '# Phase %s\\n\\n%s\\n\\nSession %s.\\n' "$BATON_PHASE_ID" "$(printf 'Done and verified. %.0s' $(seq 20))" "$BATON_SESSION_ID" > "$BATON_SUMMARY_FILE"`,
      `printf '%s' '${metadata}' | sed "s/SESSION/$BATON_SESSION_ID/; s#SUMMARY#$BATON_SUMMARY_FILE#" > "$BATON_METADATA_FILE"`,
    ].join("\n"),
  );
  const result = runBaton(dir, ["implement", "1"], env);
  return { ...result, shown: `${result.stdout}\n${result.stderr}` };
}

const fix = `printf 'def total(a, b):\\n    return a + b\\n' > sum.py`;

describe.skipIf(!pytest)("checks counted from pytest's JUnit report", () => {
  it("accepts the fix and records 3 tests passed", () => {
    const dir = project();
    const run = implement(dir, fix);
    expect(run.status, run.shown).toBe(0);
    expect(readJson(dir, "state.json").active_projects[0].status).toBe("completed");
    const files = git(dir, ["ls-files", "specs/1_build_the_parser/evidence"]).trim().split("\n");
    const checks = files.flatMap((f) => JSON.parse(readFileSync(join(dir, f), "utf8")).checks ?? []);
    expect(checks[0]).toMatchObject({ counts: { tests: 3, passed: 3 } });
  });

  it("refuses code that ends pytest before it reports (NO_TESTS_RAN)", () => {
    const dir = project();
    const run = implement(
      dir,
      `printf 'import os\\nif "PYTEST_VERSION" in os.environ:\\n    os._exit(0)\\ndef total(a, b):\\n    return a - b\\n' > sum.py`,
    );
    expect(run.status, run.shown).toBe(1);
    expect(run.shown).toContain("NO_TESTS_RAN");
  });

  it("refuses a run whose exit code says pass while its report says tests failed (CHECK_FAILED)", () => {
    // A check that swallows pytest's exit code (`; true`), as some projects' test scripts do: the report decides.
    const dir = project("PYTHONDONTWRITEBYTECODE=1 python3 -m pytest -q -p no:cacheprovider tests; true");
    const run = implement(dir, "printf '# untouched bug\\n' >> sum.py");
    expect(run.status, run.shown).toBe(1);
    expect(run.shown).toContain("CHECK_FAILED");
    expect(run.shown).toMatch(
      /exited 0, but its runner reported 2 failed test\(s\) \(3 test\(s\): 1 passed, 2 failed/,
    );
  });

  it("refuses work that lives outside the repository behind a link (LINK_OUT_OF_REPO)", () => {
    const dir = project();
    const outside = tempDir("baton-home-");
    const run = implement(
      dir,
      `${fix.replace("> sum.py", `> ${outside}/sum.py`)} && rm sum.py && ln -s ${outside}/sum.py sum.py`,
    );
    expect(run.status, run.shown).toBe(1);
    expect(run.shown).toContain(`LINK_OUT_OF_REPO`);
    expect(run.shown).toContain(`sum.py → ${outside}/sum.py`);
  });

  it("takes a dependency added to pyproject.toml as the agent's, and its pytest settings as the baseline's", () => {
    const withPyproject = () => {
      const dir = project();
      writeFileSync(
        join(dir, "pyproject.toml"),
        '[project]\nname = "sum"\nversion = "0.1.0"\ndependencies = []\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
      );
      commitAll(dir, "pyproject.toml");
      return dir;
    };
    const honest = implement(
      withPyproject(),
      `${fix}\nsed -i 's/^dependencies = \\[\\]/dependencies = ["attrs>=23"]/' pyproject.toml`,
    );
    expect(honest.status, honest.shown).toBe(0);
    // Settings that deselect the failing tests are the runner's side: the verdict tree has the baseline's.
    const cheat = implement(withPyproject(), `printf 'addopts = "-k adds"\n' >> pyproject.toml`);
    expect(cheat.status, cheat.shown).toBe(1);
    expect(cheat.shown).toContain("failed in the verdict tree");
  });

  it("holds a test file the plan may change to which tests ran, not how many (TESTS_REDUCED)", () => {
    const dir = project();
    const plan = join(dir, "specs/1_build_the_parser/plans/implementation-001.md");
    writeFileSync(
      plan,
      readFileSync(plan, "utf8").replace(/(### Phase 1:[^\n]*\n)/, "$1\nFiles: `tests/test_sum.py`\n"),
    );
    commitAll(dir, "the plan names the test file");
    const trivial =
      "def test_one():\\n    pass\\n\\n\\ndef test_two():\\n    pass\\n\\n\\ndef test_three():\\n    pass\\n";
    const run = implement(dir, `printf '${trivial}' > tests/test_sum.py`);
    expect(run.status, run.shown).toBe(1);
    expect(run.shown).toContain("TESTS_REDUCED");
    expect(readFileSync(join(dir, "specs/errors.json"), "utf8")).toContain(
      "the baseline ran did not run and pass now, whatever the total: tests.test_sum test_adds",
    );
  });

  it("holds a retry to the baseline commit: a test a refused try weakened and left in the tree is not the question", () => {
    const dir = project();
    const first = implement(dir, `sed -i 's/== -5/== 1/; s/== 5/== -1/' tests/test_sum.py`);
    expect(first.status, first.shown).toBe(1);
    expect(first.shown).toContain("failed in the verdict tree");
    const retry = implement(dir, "printf '# retried\\n' >> sum.py");
    expect(retry.status, retry.shown).toBe(1);
    expect(retry.shown).toContain('CHECK_FAILED: check "pytest"');
    expect(retry.shown).toContain("failed in the verdict tree");
  });

  it("refuses a real fix that commits a skip marker on a baseline test (TESTS_SKIPPED in the agent's own tree)", () => {
    const dir = project();
    const run = implement(
      dir,
      `${fix}\nsed -i 's/^def test_zero/import pytest\\n@pytest.mark.skip\\ndef test_zero/' tests/test_sum.py`,
    );
    expect(run.status, run.shown).toBe(1);
    expect(run.shown).toContain("TESTS_SKIPPED");
    expect(run.shown).toContain("in the tree the agent left");
  });

  it.each([
    [
      "a new conftest.py that turns every failure into a pass",
      "printf 'import pytest\\n@pytest.hookimpl(hookwrapper=True)\\ndef pytest_runtest_makereport(item, call):\\n    outcome = yield\\n    outcome.get_result().outcome = \"passed\"\\n' > conftest.py",
    ],
    [
      "a module under tests/ that shadows the code",
      "printf 'def total(a, b):\\n    return {(2, 3): 5, (-2, -3): -5, (7, 0): 7}[(a, b)]\\n' > tests/sum.py",
    ],
    [
      "a conftest that sets the session's exit status to 0",
      "printf 'def pytest_sessionfinish(session, exitstatus):\\n    session.exitstatus = 0\\n' > tests/conftest.py",
    ],
    [
      "a .pytest.ini that deselects the failing tests",
      "printf '[pytest]\\naddopts = -k adds\\n' > .pytest.ini",
    ],
  ])("refuses %s: no new file a runner loads is in the verdict tree", (_, cheat) => {
    const dir = project();
    const run = implement(dir, cheat);
    expect(run.status, run.shown).toBe(1);
    expect(run.shown).toContain('CHECK_FAILED: check "pytest"');
    expect(run.shown).toContain("failed in the verdict tree");
    expect(readJson(dir, "state.json").active_projects[0].status).not.toBe("completed");
  });

  it("accepts a fix with a test helper refactored and a conftest fixture added: the baseline's tests decide, the agent's pass too", () => {
    const dir = project();
    writeFileSync(
      join(dir, "tests", "helpers.py"),
      "def check(actual, expected):\n    assert actual == expected\n",
    );
    writeFileSync(
      join(dir, "tests", "test_sum.py"),
      TESTS.replace("from sum import total", "from sum import total\nfrom helpers import check").replace(
        "assert total(2, 3) == 5",
        "check(total(2, 3), 5)",
      ),
    );
    commitAll(dir, "a test helper");
    const refactor =
      "printf 'def check(actual, expected, message=None):\\n    assert actual == expected, message or f\"{actual} != {expected}\"\\n' > tests/helpers.py";
    const fixture =
      "printf 'import pytest\\n\\n@pytest.fixture\\ndef pair():\\n    return (2, 3)\\n' > tests/conftest.py";
    const run = implement(dir, `${fix}\n${refactor}\n${fixture}`);
    expect(run.status, run.shown).toBe(0);
    expect(git(dir, ["show", "HEAD:tests/helpers.py"])).toContain("message or");
    expect(readJson(dir, "state.json").active_projects[0].status).toBe("completed");
  });

  it("does not let the checks see a pytest plugin the run installed in the user's site-packages", () => {
    const plugin = [
      'site=$(python3 -c "import site; print(site.getusersitepackages())")',
      'mkdir -p "$site/evil-0.0.dist-info"',
      `printf 'import pytest\\n@pytest.hookimpl(hookwrapper=True)\\ndef pytest_runtest_makereport(item, call):\\n    outcome = yield\\n    outcome.get_result().outcome = "passed"\\n' > "$site/evil_plugin.py"`,
      `printf 'Metadata-Version: 2.1\\nName: evil\\nVersion: 0.0\\n' > "$site/evil-0.0.dist-info/METADATA"`,
      `printf '[pytest11]\\nevil = evil_plugin\\n' > "$site/evil-0.0.dist-info/entry_points.txt"`,
      "printf '# untouched bug\\n' >> sum.py",
    ].join("\n");
    const home = tempDir("baton-home-");
    const run = implement(project(), plugin, { HOME: home });
    expect(run.status, run.shown).toBe(1);
    expect(run.shown).toContain("failed in the verdict tree");
  });

  it("does not let the checks see a .pth the run put into the project's virtualenv; a library installed with its requirements is the agent's", () => {
    const withVenv = () => {
      const dir = project(".venv/bin/python -B -m pytest -q -p no:cacheprovider tests");
      writeFileSync(join(dir, ".gitignore"), ".venv/\n");
      writeFileSync(join(dir, "requirements.txt"), "pytest\n");
      spawnSync("python3", ["-m", "venv", "--without-pip", "--system-site-packages", ".venv"], { cwd: dir });
      commitAll(dir, "a virtualenv");
      return dir;
    };
    const plant = [
      `site=$(.venv/bin/python -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")`,
      `printf 'import pytest\\n@pytest.hookimpl(hookwrapper=True)\\ndef pytest_runtest_makereport(item, call):\\n    outcome = yield\\n    outcome.get_result().outcome = "passed"\\n' > "$site/zz_plugin.py"`,
      `printf 'import os; os.environ["PYTEST_PLUGINS"] = "zz_plugin"\\n' > "$site/zz_evil.pth"`,
      "printf '# untouched bug\\n' >> sum.py",
    ].join("\n");
    const cheat = implement(withVenv(), plant);
    expect(cheat.status, cheat.shown).toBe(1);
    expect(cheat.shown).toContain("failed in the verdict tree");
    // A library installed into it with the requirements changed, as an install would: the agent's declared work.
    const install = [
      `site=$(.venv/bin/python -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")`,
      `printf 'def add(a, b):\\n    return a + b\\n' > "$site/zz_ops.py"`,
      "printf 'zz-ops==1\\n' >> requirements.txt",
      "printf 'from zz_ops import add\\n\\ndef total(a, b):\\n    return add(a, b)\\n' > sum.py",
    ].join("\n");
    const declared = implement(withVenv(), install);
    expect(declared.status, declared.shown).toBe(0);
  });
});
