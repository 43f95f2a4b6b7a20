import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { checkInputsAt, isRunnerConfig, isTestPath } from "./check-inputs.js";

let dirs: string[] = [];
afterEach(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs = [];
});

function repo(files: Record<string, string>): { dir: string; commit: string } {
  const dir = mkdtempSync(join(tmpdir(), "baton-inputs-"));
  dirs.push(dir);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  const git = (...args: string[]) => execFileSync("git", args, { cwd: dir, encoding: "utf8" }).trim();
  git("init", "-q");
  git("add", "-A");
  git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "baseline");
  return { dir, commit: git("rev-parse", "HEAD") };
}

const check = (run: string) => ({ name: "c", run, when: "both", languages: null, timeoutMs: 1000 }) as never;

describe("check inputs", () => {
  it.each([
    "test/sum.test.js",
    "src/parser.spec.ts",
    "src/__tests__/a.js",
    "tests/test_parser.py",
    "pkg/parser_test.go",
    "app/src/test/java/ParserTest.java",
    "spec/models/user_spec.rb",
    "conftest.py",
  ])("knows %s for a test", (path) => expect(isTestPath(path)).toBe(true));

  it.each(["src/sum.js", "src/testing.ts", "docs/spec.md", "src/contest.py"])("knows %s for code", (path) =>
    expect(isTestPath(path)).toBe(false),
  );

  it.each([
    "jest.config.ts",
    "vitest.config.mjs",
    ".mocharc.yml",
    "pytest.ini",
    "tox.ini",
    "Makefile",
    "baton.config.json",
  ])("knows %s for a runner's configuration", (path) => expect(isRunnerConfig(path)).toBe(true));

  it("follows a check's npm scripts to the files they run by name, and never covers the task store", async () => {
    const { dir, commit } = repo({
      "package.json": JSON.stringify({
        scripts: { test: "npm run unit", unit: "bash ci/run-tests.sh", pretest: "node tools/gen.js" },
      }),
      "ci/run-tests.sh": "node --test\n",
      "tools/gen.js": "",
      "tools/other.js": "",
      "src/sum.js": "",
      "specs/1_x/tests/a.test.js": "",
    });
    const inputs = await checkInputsAt(dir, commit, [check("npm test")], "specs");
    expect(inputs.covers("ci/run-tests.sh")).toBe(true);
    expect(inputs.covers("tools/gen.js")).toBe(true);
    expect(inputs.covers("package.json")).toBe(true);
    expect(inputs.covers("tools/other.js")).toBe(false);
    expect(inputs.covers("src/sum.js")).toBe(false);
    expect(inputs.covers("specs/1_x/tests/a.test.js")).toBe(false);
    // A test file added by the work is the agent's; a runner configuration is a check input however new.
    expect(inputs.covers("test/new.test.js")).toBe(false);
    expect(inputs.covers("jest.config.js")).toBe(true);
  });
});
