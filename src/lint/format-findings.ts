import type { Finding, Rule, Severity } from "./rule-types.js";
import type { LintResult } from "./run-lint.js";

/** The docs anchor of a rule: `references/unknown-agent` → `references-unknown-agent`. */
export function ruleAnchor(id: string): string {
  return id.replace(/\//g, "-");
}

export const DOCS_PATH = "docs/lint.md";

/** `file:line:col rule-id message`, the hint indented below, then one summary line. */
export function formatHuman(result: LintResult): string {
  const out: string[] = [];
  for (const f of result.findings) {
    out.push(
      `${f.file}:${f.line}:${f.column} ${f.rule} ${f.severity === "error" ? "" : `(${f.severity}) `}${f.message}`,
    );
    if (f.hint) out.push(`    ${f.hint}`);
  }
  if (out.length > 0) out.push("");
  out.push(summary(result));
  return out.join("\n");
}

export function summary(result: LintResult): string {
  const count = (s: Severity) => result.findings.filter((f) => f.severity === s).length;
  const parts = [plural(count("error"), "error"), plural(count("warning"), "warning")];
  const info = count("info");
  if (info > 0) parts.push(plural(info, "note"));
  const where =
    result.trees.length > 0
      ? result.trees.join(" and ")
      : `no ${result.looked.map((tree) => `${tree}/`).join(" or ")} found`;
  return `${parts.join(", ")} in ${plural(result.files, "file")} (${where}; ${plural(result.rules, "rule")}, ${Math.round(result.durationMs)} ms)`;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

export function formatJson(result: LintResult): string {
  const count = (s: Severity) => result.findings.filter((f) => f.severity === s).length;
  return JSON.stringify(
    {
      root: result.root,
      files: result.files,
      rules: result.rules,
      durationMs: result.durationMs,
      errors: count("error"),
      warnings: count("warning"),
      findings: result.findings,
    },
    null,
    2,
  );
}

const LEVEL: Record<Severity, "error" | "warning" | "note"> = {
  error: "error",
  warning: "warning",
  info: "note",
};

/**
 * SARIF 2.1.0, as code-scanning tools read it: every rule that ran is listed in `tool.driver.rules`
 * (so a clean run still documents what was checked), results point at `ruleIndex` and carry the hint
 * as a fix description in the message.
 */
export function formatSarif(result: LintResult, rules: readonly Rule[], version: string): string {
  const index = new Map(rules.map((rule, i) => [rule.id, i]));
  const sarif = {
    $schema: "https://json.schemastore.org/sarif-2.1.0.json",
    version: "2.1.0",
    runs: [
      {
        tool: {
          driver: {
            name: "baton-lint",
            version,
            informationUri: `${DOCS_PATH}`,
            rules: rules.map((rule) => ({
              id: rule.id,
              name: rule.id,
              shortDescription: { text: rule.description },
              helpUri: `${DOCS_PATH}#${ruleAnchor(rule.id)}`,
              defaultConfiguration: { level: LEVEL[rule.severity] },
            })),
          },
        },
        columnKind: "unicodeCodePoints",
        results: result.findings.map((f: Finding) => ({
          ruleId: f.rule,
          ...(index.has(f.rule) ? { ruleIndex: index.get(f.rule) } : {}),
          level: LEVEL[f.severity],
          message: { text: f.hint ? `${f.message}. ${f.hint}` : f.message },
          locations: [
            {
              physicalLocation: {
                artifactLocation: { uri: f.file, uriBaseId: "%SRCROOT%" },
                region: { startLine: f.line, startColumn: f.column },
              },
            },
          ],
        })),
        originalUriBaseIds: {
          "%SRCROOT%": { uri: `file://${result.root.endsWith("/") ? result.root : `${result.root}/`}` },
        },
      },
    ],
  };
  return JSON.stringify(sarif, null, 2);
}
