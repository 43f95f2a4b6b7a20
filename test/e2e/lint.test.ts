import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { BATON_BIN } from "../support/cli.js";
import { commitAll, fails, ok, repo, runBaton } from "./helpers.js";

function put(dir: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
}

const GOOD_AGENT =
  "---\nname: researcher\ndescription: Researches a task.\ntools: Read, Grep\nmodel: haiku\n---\nBody\n";
// No frontmatter: Claude Code skips the agent (frontmatter/missing-required, an error).
const BAD_AGENT = "# An agent without frontmatter\n";
// Only a warning: a command without a description.
const BARE_COMMAND = "# /hello\nSay hello.\n";

describe("baton lint (CLI)", () => {
  it("exits 0 on a clean tree and 1 on errors, printing file:line:col rule message", () => {
    const dir = repo();
    put(dir, { ".claude/agents/researcher.md": GOOD_AGENT });
    expect(ok(dir, ["lint"]).stdout).toMatch(
      /^0 errors, 0 warnings in 1 file \(\.claude; \d+ rules, \d+ ms\)\n$/,
    );

    put(dir, { ".claude/agents/broken.md": BAD_AGENT });
    const result = fails(dir, ["lint"]);
    expect(result.stdout).toContain(
      ".claude/agents/broken.md:1:1 frontmatter/missing-required agent has no frontmatter; Claude Code skips this agent",
    );
    expect(result.stdout).toContain("\n    Start the file with a `---` block");
    expect(result.stdout).toMatch(/1 error, 0 warnings in 2 files/);
    // The directory argument lints another root.
    expect(fails(join(dir, ".."), ["lint", dir]).stdout).toContain(".claude/agents/broken.md:1:1");
  });

  it("prints JSON and SARIF", () => {
    const dir = repo();
    put(dir, { ".claude/agents/broken.md": BAD_AGENT, ".claude/commands/hello.md": BARE_COMMAND });
    const json = JSON.parse(fails(dir, ["lint", "--json"]).stdout);
    expect(json).toMatchObject({ errors: 1, warnings: 1, files: 2 });
    expect(json.findings.map((f: { rule: string }) => f.rule)).toEqual([
      "frontmatter/missing-required",
      "frontmatter/missing-description",
    ]);

    const sarif = JSON.parse(fails(dir, ["lint", "--format", "sarif"]).stdout);
    expect(sarif.version).toBe("2.1.0");
    const run = sarif.runs[0];
    const ids = run.tool.driver.rules.map((r: { id: string }) => r.id);
    expect(ids).toContain("references/unknown-agent");
    expect(run.tool.driver.rules[0].helpUri).toMatch(/^docs\/lint\.md#[a-z-]+$/);
    expect(run.results.map((r: { level: string }) => r.level)).toEqual(["error", "warning"]);
    expect(run.results[0].locations[0].physicalLocation).toEqual({
      artifactLocation: { uri: ".claude/agents/broken.md", uriBaseId: "%SRCROOT%" },
      region: { startLine: 1, startColumn: 1 },
    });
  });

  it("disables rules from the config and from flags; --max-warnings limits warnings", () => {
    const dir = repo();
    put(dir, { ".claude/agents/broken.md": BAD_AGENT, ".claude/commands/hello.md": BARE_COMMAND });
    fails(dir, ["lint"]);
    ok(dir, ["lint", "--disable", "frontmatter/missing-required"]);
    fails(dir, ["lint", "--disable", "frontmatter/missing-required", "--max-warnings", "0"]);
    ok(dir, ["lint", "--disable", "frontmatter/"]);

    writeFileSync(
      join(dir, "baton.config.json"),
      JSON.stringify({ lint: { disable: ["frontmatter/missing-required"] } }),
    );
    const json = JSON.parse(ok(dir, ["lint", "--json"]).stdout);
    expect(json.findings.map((f: { rule: string }) => f.rule)).toEqual(["frontmatter/missing-description"]);

    // A pattern that matches no rule is a mistake worth stopping for.
    writeFileSync(join(dir, "baton.config.json"), JSON.stringify({ lint: { disable: ["frontmater/"] } }));
    expect(fails(dir, ["lint"]).stderr).toContain('no lint rule matches "frontmater/"');
    expect(fails(dir, ["lint", "--format", "xml"], 2).stderr).toContain("--format must be one of");
  });

  it("refuses a folder that does not exist (exit 2) and says when there is nothing to lint", () => {
    const dir = repo();
    const missing = runBaton(dir, ["lint", join(dir, "no-such-folder")]);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain("is not a directory");
    expect(ok(dir, ["lint"]).stdout).toContain("no .claude/ or .opencode/ found");
  });

  it("lists the rules", () => {
    const dir = repo();
    const out = ok(dir, ["lint", "--list-rules"]).stdout;
    for (const id of ["frontmatter/invalid-yaml", "references/missing-file", "state/doctor"])
      expect(out).toContain(id);
    const json = JSON.parse(ok(dir, ["lint", "--list-rules", "--json"]).stdout);
    expect(json.find((r: { id: string }) => r.id === "state/doctor").docs).toBe("docs/lint.md#state-doctor");
  });

  it("finds nothing in a tree fresh from `baton init --host opencode`, with tasks in specs/", () => {
    const dir = repo();
    ok(dir, ["init", "--bin", `node ${BATON_BIN}`]);
    ok(dir, ["init", "--host", "opencode", "--bin", `node ${BATON_BIN}`]);
    ok(dir, ["task", "add", "Prove the lemma", "-l", "lean"]);
    ok(dir, ["task", "add", "Write the docs"]);
    commitAll(dir, "init");
    const result = runBaton(dir, ["lint", "--json"]);
    const json = JSON.parse(result.stdout);
    // Both trees (Claude Code's first, opencode's added beside it), each by its own host's rules: not even
    // a warning on what Baton itself installs.
    expect(json.findings, JSON.stringify(json.findings, null, 2)).toEqual([]);
    expect(result.status).toBe(0);
    expect(json.files).toBeGreaterThan(20);
  });

  it("reports store drift through state/doctor", () => {
    const dir = repo();
    ok(dir, ["task", "add", "First task"]);
    put(dir, { ".claude/agents/researcher.md": GOOD_AGENT });
    const statePath = join(dir, "specs/state.json");
    const state = JSON.parse(readFileSync(statePath, "utf8"));
    state.next_project_number = 99;
    writeFileSync(statePath, JSON.stringify(state, null, 2));
    const out = fails(dir, ["lint"]).stdout;
    expect(out).toMatch(/specs\/state\.json:1:1 state\/doctor .*\[NEXT_NUMBER_MISMATCH\]/);
  });
});
