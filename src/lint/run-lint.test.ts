import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { LINT_HOSTS, modelFromTexts } from "../../test/support/lint-model.js";
import { resolveConfig } from "../config/index.js";
import { type Finding, finding, type Rule } from "./rule-types.js";
import { exitStatus, lint, runRules } from "./run-lint.js";
import { selectRules } from "./select.js";

const rule = (id: string, severity: Rule["severity"], findings: [string, number, number][] = []): Rule => ({
  id,
  severity,
  description: id,
  check() {
    return findings.map(([file, line, column]) => finding(this, file, line, column, "m", "h"));
  },
});

const RULES = [
  rule("git/a", "error"),
  rule("git/b", "warning"),
  rule("hooks/a", "error"),
  rule("gitx/c", "info"),
];

describe("selectRules", () => {
  it("disables by id or prefix, and --only keeps matches", () => {
    const ids = (options: Parameters<typeof selectRules>[1]) => selectRules(RULES, options).map((r) => r.id);
    expect(ids({ disable: ["git/"] })).toEqual(["hooks/a", "gitx/c"]);
    expect(ids({ disable: ["git"] })).toEqual(["hooks/a", "gitx/c"]);
    expect(ids({ disable: ["git/a"] })).toEqual(["git/b", "hooks/a", "gitx/c"]);
    expect(ids({ only: ["git/"], disable: ["git/b"] })).toEqual(["git/a"]);
  });
});

describe("runRules", () => {
  it("sorts by file, line, column and turns a crash into a finding", async () => {
    const crash: Rule = {
      id: "x/crash",
      severity: "warning",
      description: "",
      check: () => Promise.reject(new Error("boom")),
    };
    const findings = await runRules(modelFromTexts({ ".claude/a.md": "" }), [
      rule("b/one", "error", [
        ["b.md", 2, 1],
        ["a.md", 3, 4],
      ]),
      rule("a/two", "warning", [
        ["a.md", 3, 2],
        ["a.md", 1, 9],
      ]),
      crash,
    ]);
    expect(findings.map((f) => `${f.file}:${f.line}:${f.column} ${f.rule}`)).toEqual([
      ".claude:1:1 x/crash",
      "a.md:1:9 a/two",
      "a.md:3:2 a/two",
      "a.md:3:4 b/one",
      "b.md:2:1 b/one",
    ]);
    expect(findings[0]).toMatchObject({ severity: "error", message: "rule crashed: boom" });
  });
});

describe("exitStatus", () => {
  const f = (severity: Finding["severity"]) => ({ severity }) as Finding;
  it("is 1 on any error, or on more warnings than allowed", () => {
    expect(exitStatus([])).toBe(0);
    expect(exitStatus([f("warning"), f("info")])).toBe(0);
    expect(exitStatus([f("error")])).toBe(1);
    expect(exitStatus([f("warning"), f("warning")], 1)).toBe(1);
    expect(exitStatus([f("warning")], 1)).toBe(0);
  });
});

describe("lint", () => {
  let dir: string;
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("applies config and option disables, and rejects patterns matching no rule", async () => {
    dir = mkdtempSync(join(tmpdir(), "baton-lint-run-"));
    mkdirSync(join(dir, ".claude/agents"), { recursive: true });
    writeFileSync(join(dir, ".claude/agents/a.md"), "no frontmatter\n");
    const rules = [
      rule("git/a", "error", [[".claude/agents/a.md", 1, 1]]),
      rule("hooks/a", "warning", [["x", 1, 1]]),
    ];
    const config = resolveConfig(dir, null, { lint: { disable: ["git/"] } });
    const result = await lint(dir, { hosts: LINT_HOSTS, config, rules });
    expect(result).toMatchObject({ files: 1, rules: 1, trees: [".claude"], root: dir });
    expect(result.findings.map((f) => f.rule)).toEqual(["hooks/a"]);
    expect((await lint(dir, { hosts: LINT_HOSTS, config, rules, disable: ["hooks/a"] })).rules).toBe(0);
    await expect(lint(dir, { hosts: LINT_HOSTS, config, rules, disable: ["hook/"] })).rejects.toThrow(
      'no lint rule matches "hook/"',
    );
  });
});
