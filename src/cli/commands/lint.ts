import { statSync } from "node:fs";
import { basename, dirname, resolve } from "node:path";
import { findRepoRoot } from "../../config/index.js";
import { hostLintRules, lintHosts } from "../../hosts/index.js";
import {
  exitStatus,
  formatHuman,
  formatJson,
  formatSarif,
  type LintResult,
  lint,
  RULES,
  ruleAnchor,
  selectRules,
} from "../../lint/index.js";
import { UsageError } from "../../shared/index.js";
import { packageVersion } from "../../shared/package.js";

export interface LintCommandOptions {
  dir?: string | undefined;
  repo: string;
  disable?: string[] | undefined;
  only?: string[] | undefined;
  json?: boolean | undefined;
  format?: string | undefined;
  maxWarnings?: string | undefined;
  listRules?: boolean | undefined;
}

const FORMATS = ["human", "json", "sarif"] as const;

/** Every rule: those for every host's files, then each host's own. */
const allRules = () => [...RULES, ...hostLintRules()];

/** Runs `baton lint` and returns what to print and the exit status; main.ts does the printing. */
export async function lintCommand(
  options: LintCommandOptions,
): Promise<{ output: string; exitCode: number }> {
  const format = options.json ? "json" : (options.format ?? "human");
  if (!(FORMATS as readonly string[]).includes(format)) {
    throw new UsageError(`--format must be one of ${FORMATS.join(", ")}, got "${format}"`);
  }
  const maxWarnings = parseMaxWarnings(options.maxWarnings);
  if (options.listRules) return { output: listRules(format === "json"), exitCode: 0 };

  // `baton lint` from a subfolder lints the repository it is in, like every other command; given the
  // .claude or .opencode folder itself, it lints that tree of the repository holding it.
  const given = options.dir ? resolve(options.dir) : findRepoRoot(options.repo);
  const hosts = lintHosts();
  const trees = hosts.map((h) => h.tree);
  const tree = trees.includes(basename(given)) ? basename(given) : null;
  const root = tree ? dirname(given) : given;
  if (!statSync(given, { throwIfNoEntry: false })?.isDirectory()) {
    throw new UsageError(`${given} is not a directory`, {
      hint: `Give the folder that holds ${trees.map((t) => `${t}/`).join(" or ")}, or run baton lint inside the repository.`,
    });
  }
  const linted = await lint(root, {
    hosts,
    rules: allRules(),
    ...(options.disable ? { disable: options.disable.flatMap(splitList) } : {}),
    ...(options.only ? { only: options.only.flatMap(splitList) } : {}),
  });
  const result = tree
    ? {
        ...linted,
        trees: linted.trees.filter((t) => t.startsWith(tree)),
        findings: linted.findings.filter((f) => f.file.startsWith(`${tree}/`)),
      }
    : linted;
  return { output: render(result, format, options), exitCode: exitStatus(result.findings, maxWarnings) };
}

function render(result: LintResult, format: string, options: LintCommandOptions): string {
  if (format === "json") return formatJson(result);
  if (format === "sarif") {
    // The rules that ran: the registry minus what was disabled, the same selection `lint` made.
    const ran = selectRules(allRules(), {
      disable: options.disable?.flatMap(splitList) ?? [],
      ...(options.only ? { only: options.only.flatMap(splitList) } : {}),
    });
    return formatSarif(result, ran.length === result.rules ? ran : allRules(), packageVersion());
  }
  return formatHuman(result);
}

function listRules(json: boolean): string {
  if (json) {
    return JSON.stringify(
      allRules().map((r) => ({
        id: r.id,
        severity: r.severity,
        description: r.description,
        docs: `docs/lint.md#${ruleAnchor(r.id)}`,
      })),
      null,
      2,
    );
  }
  const rules = allRules();
  const width = Math.max(...rules.map((r) => r.id.length));
  return rules.map((r) => `${r.id.padEnd(width)}  ${r.severity.padEnd(7)}  ${r.description}`).join("\n");
}

function parseMaxWarnings(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0)
    throw new UsageError(`--max-warnings must be a whole number ≥ 0, got "${value}"`);
  return n;
}

function splitList(value: string): string[] {
  return value
    .split(",")
    .map((v) => v.trim())
    .filter(Boolean);
}
