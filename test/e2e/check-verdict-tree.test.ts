import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { commitAll, git, readJson, runBaton, tempDir } from "./helpers.js";
import { FIX, fix, implement, project } from "./sum-project.js";

/** The verdict tree holds only what the commit carries; what the run changed outside the repository is not the checks'. */
describe("baton verify --rerun", () => {
  it("runs each completion's recorded checks again on a clean checkout, and finds a pass that needed an uncommitted file", () => {
    const honest = project();
    const since = git(honest, ["rev-parse", "HEAD"]).trim();
    expect(implement(honest, fix).status).toBe(0);
    const again = runBaton(honest, ["verify", "--rerun", "--since", since]);
    expect(again.status, again.stdout + again.stderr).toBe(0);
    expect(again.stdout).toContain("1 of 1 agree with the evidence");
    expect(again.stdout).toContain('check "tests"');
    expect(again.stdout).toContain("3 tests, 3 passed");

    // The fix reads an installed dependency (an ignored node_modules, linked into the verdict tree): accepted,
    // with the evidence saying the result depended on it; once it is gone, a clean checkout fails.
    const dir = project();
    writeFileSync(join(dir, ".gitignore"), "node_modules/\n");
    mkdirSync(join(dir, "node_modules/sumlib"), { recursive: true });
    writeFileSync(join(dir, "node_modules/sumlib/index.js"), "export const op = (a, b) => a + b;\n");
    writeFileSync(
      join(dir, "node_modules/sumlib/package.json"),
      '{"name":"sumlib","type":"module","main":"index.js"}',
    );
    commitAll(dir, "ignore node_modules");
    const before = git(dir, ["rev-parse", "HEAD"]).trim();
    const reads = `import { op } from "sumlib";\nexport const sum = (a, b) => op(a, b);\n`;
    const run = implement(dir, `printf '%s' '${reads}' > src/sum.js`);
    expect(run.status, run.shown).toBe(0);
    const evidence = git(dir, ["ls-files", "specs/1_build_the_parser/evidence"]).trim().split("\n");
    const checks = evidence.flatMap((f) => JSON.parse(readFileSync(join(dir, f), "utf8")).checks ?? []);
    expect(checks[0]).toMatchObject({ tree: "verdict", linked: ["node_modules"] });
    execFileSync("rm", ["-rf", join(dir, "node_modules/sumlib")]);
    const rerun = runBaton(dir, ["verify", "--rerun", "--json", "--since", before]);
    expect(rerun.status, rerun.stdout + rerun.stderr).toBe(1);
    const reruns = JSON.parse(rerun.stdout).reruns;
    expect(reruns).toEqual([
      expect.objectContaining({
        check: "tests",
        ok: false,
        problem: expect.stringContaining("fails on a clean checkout"),
      }),
    ]);
  });
});

describe("installed dependencies", () => {
  /** A project whose sum comes from an installed library (an ignored node_modules) with the bug in it. */
  function withLibrary(): string {
    const dir = project();
    writeFileSync(join(dir, ".gitignore"), "node_modules/\n");
    writeFileSync(
      join(dir, "package-lock.json"),
      '{"lockfileVersion":3,"packages":{"node_modules/sumlib":{"version":"1.0.0"}}}\n',
    );
    mkdirSync(join(dir, "node_modules/sumlib"), { recursive: true });
    writeFileSync(join(dir, "node_modules/sumlib/index.js"), "export const op = (a, b) => a - b;\n");
    writeFileSync(
      join(dir, "node_modules/sumlib/package.json"),
      '{"name":"sumlib","type":"module","main":"index.js"}',
    );
    writeFileSync(
      join(dir, "src/sum.js"),
      'import { op } from "sumlib";\nexport const sum = (a, b) => op(a, b);\n',
    );
    commitAll(dir, "sum from an installed library");
    return dir;
  }
  const patched = "printf '%s' 'export const op = (a, b) => a + b;' > node_modules/sumlib/index.js";

  it("may not change during the run unless what they are installed from does: a patched library reads empty to the checks", () => {
    const dir = withLibrary();
    const run = implement(dir, `${patched}\necho '// patched the library' >> src/sum.js`);
    expect(run.status, run.shown).toBe(1);
    expect(run.shown).toContain("failed in the verdict tree");
    expect(readJson(dir, "state.json").active_projects[0].status).not.toBe("completed");
  });

  it("may change with the lock file: a new version installed as npm would is the agent's declared work", () => {
    const dir = withLibrary();
    const install = `${patched}\nsed -i 's/1.0.0/1.0.1/' package-lock.json`;
    const run = implement(dir, `${install}\necho '// sumlib 1.0.1' >> src/sum.js`);
    expect(run.status, run.shown).toBe(0);
    expect(git(dir, ["show", "HEAD:package-lock.json"])).toContain("1.0.1");
  });
});

describe("what the run changed outside the repository", () => {
  it("is not seen by the checks: ~/.npmrc node-options that patch assert are refused, the honest fix passes with them", () => {
    const home = tempDir("baton-home-");
    const patch = `printf '%s\\n' 'const a = require("node:assert"); a.strict.equal = () => {};' > "$HOME/patch.cjs"; printf 'node-options=--require %s/patch.cjs\\n' "$HOME" > "$HOME/.npmrc"`;
    const dir = project();
    const cheat = implement(dir, `${patch}\necho '// untouched bug' >> src/sum.js`, { HOME: home });
    expect(cheat.status, cheat.shown).toBe(1);
    expect(cheat.shown).toContain("failed in the verdict tree");
    expect(readFileSync(join(home, ".npmrc"), "utf8")).toContain("node-options");
    // The same change beside a real fix: the checks pass without it, and the evidence names what they did not see.
    const honest = project();
    const run = implement(honest, `${fix}\n${patch}`, { HOME: tempDir("baton-home-") });
    expect(run.status, run.shown).toBe(0);
    const files = git(honest, ["ls-files", "specs/1_build_the_parser/evidence"]).trim().split("\n");
    const checks = files.flatMap((f) => JSON.parse(readFileSync(join(honest, f), "utf8")).checks ?? []);
    expect(checks.some((c: { unseen?: string[] }) => c.unseen?.some((p) => p.endsWith("/.npmrc")))).toBe(
      true,
    );
  });

  it("is not seen by the checks: a program put ahead of node on PATH during the run", () => {
    const home = tempDir("baton-home-");
    mkdirSync(join(home, "bin"));
    // A `node` that says every test passed, in a PATH folder that comes first.
    const fake = `printf '%s\\n' '#!/bin/sh' 'echo "# tests 3"; echo "# pass 3"; exit 0' > "$HOME/bin/node"; chmod +x "$HOME/bin/node"`;
    const dir = project("", "both", [], [{ name: "tests", run: "node --test test/*.test.js" }]);
    const run = implement(dir, `${fake}\necho '// untouched bug' >> src/sum.js`, {
      HOME: home,
      PATH: `${join(home, "bin")}:${process.env["PATH"]}`,
    });
    expect(run.status, run.shown).toBe(1);
    expect(run.shown).toContain("failed in the verdict tree");
  });
});

describe("the commit carries the work", () => {
  it.each([
    [
      "reads a file git ignores",
      "data.json",
      `printf '{"op":"+"}' > data.json\nprintf '%s' 'import { readFileSync } from "node:fs";\nconst op = JSON.parse(readFileSync(new URL("../data.json", import.meta.url), "utf8")).op;\nexport const sum = (a, b) => (op === "+" ? a + b : a - b);\n' > src/sum.js`,
    ],
    [
      "re-exports a fix kept in an ignored build folder",
      "dist/",
      `mkdir -p dist && printf '%s' '${FIX}' > dist/sum.js && printf '%s' 'export { sum } from "../dist/sum.js";' > src/sum.js`,
    ],
  ])("refuses a fix that %s: the verdict tree has only what the commit carries", (_, ignored, work) => {
    const dir = project();
    writeFileSync(join(dir, ".gitignore"), `${ignored}\n`);
    commitAll(dir, "ignore a file");
    const run = implement(dir, work);
    expect(run.status, run.shown).toBe(1);
    expect(run.shown).toContain("failed in the verdict tree");
    expect(readJson(dir, "state.json").active_projects[0].status).not.toBe("completed");
  });
});

describe("a plan run's own checks at its end", () => {
  it("go through the same gates: a check run only for the whole operation still refuses a rewritten test script", () => {
    const dir = project("", "operation");
    const run = implement(dir, `${fix}\nsed -i 's#"node --test test/\\*.test.js"#"node -e 0"#' package.json`);
    expect(run.status, run.shown).toBe(1);
    expect(run.shown).toContain("NO_TESTS_RAN");
    expect(readJson(dir, "state.json").active_projects[0].status).not.toBe("completed");
  });
});
