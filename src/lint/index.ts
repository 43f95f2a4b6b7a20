/** `baton lint`: the public face of the lint domain. */
export { DOCS_PATH, formatHuman, formatJson, formatSarif, ruleAnchor, summary } from "./format.js";
export { buildModel, type ModelFromTextsOptions, modelFromTexts } from "./model.js";
export { RULES } from "./rules/index.js";
export { exitStatus, type LintOptions, type LintResult, lint, runRules, sortFindings } from "./run.js";
export { matchesRule, selectRules } from "./select.js";
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
} from "./types.js";
export { finding } from "./types.js";
