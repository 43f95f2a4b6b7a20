import { resolve } from "node:path";
import type { BatonConfig } from "../config/index.js";
import { loadConfig } from "../config/index.js";
import { ConfigError } from "../shared/index.js";
import type { LintHost } from "./lint-host.js";
import { buildModel } from "./model.js";
import type { Finding, LintModel, Rule } from "./rule-types.js";
import { RULES } from "./rules/index.js";
import { selectRules, unmatchedPatterns } from "./select.js";

export interface LintOptions {
  /** The hosts whose files to read (each host's own, from hosts/<name>/), the primary one first. */
  hosts: readonly LintHost[];
  /** Rule ids or prefixes to skip, on top of the config's `lint.disable`. */
  disable?: string[];
  /** Only these rule ids or prefixes. */
  only?: string[];
  /** Use this config instead of loading `baton.config.*` (tests, callers that already hold one). */
  config?: BatonConfig;
  /** Rules to run instead of the registry (tests). */
  rules?: readonly Rule[];
}

export interface LintResult {
  /** Sorted by file, line, column, then rule id. */
  findings: Finding[];
  /** Files in the model (every file of `.claude/` and `.opencode/`). */
  files: number;
  durationMs: number;
  /** Rules that ran. */
  rules: number;
  /** The linted root, absolute. */
  root: string;
  /** The config trees found (`.claude`, `.opencode`). */
  trees: string[];
  /** The trees looked for, found or not. */
  looked: string[];
}

export async function lint(root: string, options: LintOptions): Promise<LintResult> {
  const started = performance.now();
  const absolute = resolve(root);
  const config = options.config ?? (await loadConfig(absolute));
  const all = options.rules ?? RULES;
  const patterns = [...config.lint.disable, ...(options.disable ?? []), ...(options.only ?? [])];
  const unknown = unmatchedPatterns(all, patterns);
  if (unknown.length > 0) {
    throw new ConfigError(`no lint rule matches ${unknown.map((p) => `"${p}"`).join(", ")}`, {
      hint: "Run `baton lint --list-rules` for the rule ids; a prefix ends with `/` (e.g. `git/`).",
    });
  }
  const rules = selectRules(all, {
    disable: [...config.lint.disable, ...(options.disable ?? [])],
    ...(options.only ? { only: options.only } : {}),
  });
  const model = await buildModel(absolute, options.hosts);
  model.config = config;
  const findings = await runRules(model, rules);
  return {
    findings,
    files: model.files.length,
    durationMs: Math.round((performance.now() - started) * 10) / 10,
    rules: rules.length,
    root: absolute,
    trees: model.trees,
    looked: model.hosts.map((h) => h.tree),
  };
}

/** Runs rules on a model; a rule that throws becomes an error finding instead of ending the lint. */
export async function runRules(model: LintModel, rules: readonly Rule[]): Promise<Finding[]> {
  const results = await Promise.all(
    rules.map(async (rule) => {
      try {
        return await rule.check(model);
      } catch (error) {
        return [
          {
            rule: rule.id,
            severity: "error" as const,
            file: model.trees[0] ?? ".",
            line: 1,
            column: 1,
            message: `rule crashed: ${error instanceof Error ? error.message : String(error)}`,
            hint: "This is a bug in Baton; disable the rule with `--disable` meanwhile.",
          },
        ];
      }
    }),
  );
  return sortFindings(results.flat());
}

export function sortFindings(findings: Finding[]): Finding[] {
  return findings.sort(
    (a, b) =>
      (a.file < b.file ? -1 : a.file > b.file ? 1 : 0) ||
      a.line - b.line ||
      a.column - b.column ||
      (a.rule < b.rule ? -1 : a.rule > b.rule ? 1 : 0),
  );
}

/** 1 when any error, or when warnings exceed `maxWarnings`; else 0. */
export function exitStatus(findings: readonly Finding[], maxWarnings?: number): 0 | 1 {
  if (findings.some((f) => f.severity === "error")) return 1;
  if (maxWarnings !== undefined && findings.filter((f) => f.severity === "warning").length > maxWarnings)
    return 1;
  return 0;
}
