import { describe, expect, it } from "vitest";
import { formatHuman, formatJson, formatSarif, ruleAnchor } from "./format-findings.js";
import type { Rule } from "./rule-types.js";
import type { LintResult } from "./run-lint.js";

const rules: Rule[] = [
  { id: "frontmatter/invalid-yaml", severity: "error", description: "bad YAML", check: () => [] },
  { id: "hooks/x", severity: "warning", description: "hook thing", check: () => [] },
];
const result: LintResult = {
  root: "/repo",
  trees: [".claude"],
  looked: [".claude", ".opencode"],
  files: 12,
  rules: 2,
  durationMs: 41.6,
  findings: [
    {
      rule: "frontmatter/invalid-yaml",
      severity: "error",
      file: ".claude/agents/a.md",
      line: 3,
      column: 7,
      message: "invalid",
      hint: "Fix it.",
    },
    {
      rule: "hooks/x",
      severity: "warning",
      file: ".claude/settings.json",
      line: 9,
      column: 24,
      message: "iffy",
      hint: "",
    },
  ],
};

describe("formatHuman", () => {
  it("prints file:line:col rule message, the hint indented, and a summary", () => {
    expect(formatHuman(result)).toBe(
      [
        ".claude/agents/a.md:3:7 frontmatter/invalid-yaml invalid",
        "    Fix it.",
        ".claude/settings.json:9:24 hooks/x (warning) iffy",
        "",
        "1 error, 1 warning in 12 files (.claude; 2 rules, 42 ms)",
      ].join("\n"),
    );
  });
});

describe("formatJson", () => {
  it("carries counts and findings", () => {
    const json = JSON.parse(formatJson(result));
    expect(json).toMatchObject({ errors: 1, warnings: 1, files: 12, rules: 2 });
    expect(json.findings).toEqual(result.findings);
  });
});

describe("formatSarif", () => {
  it("is SARIF 2.1.0 with rules, levels, help links and regions", () => {
    const sarif = JSON.parse(formatSarif(result, rules, "0.1.0"));
    expect(sarif.version).toBe("2.1.0");
    expect(sarif.$schema).toContain("sarif-2.1.0");
    const run = sarif.runs[0];
    expect(run.tool.driver).toMatchObject({ name: "baton-lint", version: "0.1.0" });
    expect(run.tool.driver.rules[0]).toEqual({
      id: "frontmatter/invalid-yaml",
      name: "frontmatter/invalid-yaml",
      shortDescription: { text: "bad YAML" },
      helpUri: "docs/lint.md#frontmatter-invalid-yaml",
      defaultConfiguration: { level: "error" },
    });
    expect(run.results).toHaveLength(2);
    expect(run.results[0]).toEqual({
      ruleId: "frontmatter/invalid-yaml",
      ruleIndex: 0,
      level: "error",
      message: { text: "invalid. Fix it." },
      locations: [
        {
          physicalLocation: {
            artifactLocation: { uri: ".claude/agents/a.md", uriBaseId: "%SRCROOT%" },
            region: { startLine: 3, startColumn: 7 },
          },
        },
      ],
    });
    expect(run.results[1]).toMatchObject({ level: "warning", ruleIndex: 1, message: { text: "iffy" } });
    expect(run.originalUriBaseIds["%SRCROOT%"].uri).toBe("file:///repo/");
  });

  it("maps info to note and anchors ids", () => {
    const info = { ...result, findings: [{ ...result.findings[0]!, severity: "info" as const }] };
    expect(JSON.parse(formatSarif(info, rules, "x")).runs[0].results[0].level).toBe("note");
    expect(ruleAnchor("references/unknown-agent")).toBe("references-unknown-agent");
  });
});
