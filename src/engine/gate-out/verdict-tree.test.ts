import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ConfiguredCheck } from "../../config/index.js";
import { mergedPackage, mergedPyproject } from "./check-side.js";
import { planVerdictTree, withVerdictTree } from "./verdict-tree.js";

const check = (run: string): ConfiguredCheck => ({
  name: "tests",
  run,
  timeoutMs: 60_000,
  languages: null,
  when: "both",
  report: null,
  format: "junit",
  holdout: null,
});

let dirs: string[] = [];
afterEach(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs = [];
});

const git = (dir: string, args: string[]) =>
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd: dir, encoding: "utf8" });

function repo(): { dir: string; commit: string } {
  const dir = mkdtempSync(join(tmpdir(), "baton-verdict-"));
  dirs.push(dir);
  git(dir, ["init", "-q"]);
  mkdirSync(join(dir, "src"));
  mkdirSync(join(dir, "tests"));
  writeFileSync(join(dir, "src/sum.py"), "def total(a, b):\n    return a - b\n");
  writeFileSync(
    join(dir, "tests/test_sum.py"),
    "from sum import total\n\ndef test_adds():\n    assert total(2, 3) == 5\n",
  );
  writeFileSync(join(dir, "tests/helpers.py"), "def same(a, b):\n    assert a == b\n");
  writeFileSync(
    join(dir, "package.json"),
    `${JSON.stringify({ name: "p", scripts: { test: "node --test" }, dependencies: {} }, null, 2)}\n`,
  );
  git(dir, ["add", "-A"]);
  git(dir, ["commit", "-qm", "baseline"]);
  return { dir, commit: git(dir, ["rev-parse", "HEAD"]).trim() };
}

describe("the verdict tree", () => {
  it("takes the agent's code and holds the test side, new runner-loaded files included, at the baseline", async () => {
    const { dir, commit } = repo();
    writeFileSync(join(dir, "src/sum.py"), "def total(a, b):\n    return a + b\n");
    writeFileSync(join(dir, "src/new_module.py"), "X = 1\n");
    writeFileSync(join(dir, "tests/helpers.py"), "def same(a, b, m=None):\n    assert a == b, m\n");
    writeFileSync(join(dir, "tests/conftest.py"), "# loaded by pytest\n");
    writeFileSync(join(dir, "conftest.py"), "# loaded by pytest\n");
    writeFileSync(join(dir, ".pytest.ini"), "[pytest]\n");
    writeFileSync(join(dir, "pkg_test.go"), "package p\n");
    writeFileSync(join(dir, ".swcrc"), "{}\n");
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    writeFileSync(
      join(dir, "package.json"),
      JSON.stringify({ ...pkg, scripts: { test: "node -e 0" }, dependencies: { "left-pad": "1.3.0" } }),
    );
    const plan = await planVerdictTree({ root: dir, storePrefix: "specs", commit }, [check("npm test")], "");
    expect(plan.taken).toEqual(["src/new_module.py", "src/sum.py"]);
    expect(plan.held).toEqual([
      ".pytest.ini",
      ".swcrc",
      "conftest.py",
      "package.json",
      "pkg_test.go",
      "tests/conftest.py",
      "tests/helpers.py",
    ]);
    const seen = await withVerdictTree(dir, plan, async (tree) => ({
      sum: readFileSync(join(tree, "src/sum.py"), "utf8"),
      helper: readFileSync(join(tree, "tests/helpers.py"), "utf8"),
      conftest: (() => {
        try {
          return readFileSync(join(tree, "conftest.py"), "utf8");
        } catch {
          return null;
        }
      })(),
      pkg: JSON.parse(readFileSync(join(tree, "package.json"), "utf8")),
    }));
    expect(seen?.sum).toContain("a + b");
    expect(seen?.helper).toBe("def same(a, b):\n    assert a == b\n");
    expect(seen?.conftest).toBeNull();
    expect(seen?.pkg).toMatchObject({
      scripts: { test: "node --test" },
      dependencies: { "left-pad": "1.3.0" },
    });
  });

  it("takes a test file the plan names, and a link as a link", async () => {
    const { dir, commit } = repo();
    writeFileSync(join(dir, "tests/test_sum.py"), "def test_zero():\n    pass\n");
    symlinkSync("sum.py", join(dir, "src/alias.py"));
    const plan = await planVerdictTree(
      { root: dir, storePrefix: "specs", commit },
      [check("pytest")],
      "Files: `tests/test_sum.py`",
    );
    expect(plan.taken).toEqual(["src/alias.py", "tests/test_sum.py"]);
    const link = await withVerdictTree(dir, plan, async (tree) =>
      readFileSync(join(tree, "src/alias.py"), "utf8"),
    );
    expect(link).toContain("a - b");
  });
});

describe("files that hold dependencies and runner settings in one", () => {
  it("package.json: the agent's dependencies and fields, the baseline's scripts and runner keys", () => {
    const base = JSON.stringify({ scripts: { test: "vitest" }, dependencies: {} });
    const agent = JSON.stringify({
      scripts: { test: "true" },
      vitest: { x: 1 },
      dependencies: { a: "1" },
      type: "module",
    });
    expect(JSON.parse(mergedPackage(base, agent)!)).toEqual({
      scripts: { test: "vitest" },
      dependencies: { a: "1" },
      type: "module",
    });
    expect(mergedPackage(base, "{ not json")).toBe(base);
    expect(mergedPackage(base, `{"x": ${"[".repeat(20_000)}${"]".repeat(20_000)}}`)).toBe(base);
  });

  it("pyproject.toml: the baseline's pytest settings, the agent's dependencies; its own text where nothing else changed", () => {
    const base =
      '[project]\nname = "p"\ndependencies = []\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n';
    const deps = base.replace("dependencies = []", 'dependencies = ["attrs"] # new');
    expect(mergedPyproject(base, deps)).toBe(deps);
    const both = deps.replace('testpaths = ["tests"]', 'testpaths = ["none"]');
    const merged = mergedPyproject(base, both)!;
    expect(merged).toContain('testpaths = [ "tests" ]');
    expect(merged).toContain('dependencies = [ "attrs" ]');
  });
});
