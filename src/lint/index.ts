/** `baton lint`: the public face of the lint domain. */

export { INTERPRETERS } from "../shared/interpreters.js";
export { DOCS_PATH, formatHuman, formatJson, formatSarif, ruleAnchor, summary } from "./format-findings.js";
export type { HostFrontmatter, LintHost } from "./lint-host.js";
export { buildModel, type ModelFromTextsOptions, modelFromTexts } from "./model.js";
export { keyLine } from "./parse/jsonc.js";
export type {
  FileKind,
  Finding,
  Frontmatter,
  HookEntry,
  LintFile,
  LintModel,
  NamedDefinition,
  Rule,
  Severity,
} from "./rule-types.js";
export { finding } from "./rule-types.js";
export { isComment } from "./rules/delegation/delegation-scan.js";
export { RULES } from "./rules/index.js";
export { exitStatus, type LintOptions, type LintResult, lint, runRules, sortFindings } from "./run-lint.js";
export { matchesRule, selectRules } from "./select.js";
export { closest } from "./suggest.js";
