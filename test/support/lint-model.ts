import { lintHosts } from "../../src/hosts/index.js";
import {
  buildModel as buildLintModel,
  type LintHost,
  type LintModel,
  modelFromTexts as lintModelFromTexts,
  type ModelFromTextsOptions,
} from "../../src/lint/index.js";

/** The hosts `baton lint` reads, each by its own profile from hosts/<name>/. */
export const LINT_HOSTS: readonly LintHost[] = lintHosts();

/** A lint model from texts, read for the hosts `baton lint` reads unless a test names others. */
export function modelFromTexts(
  files: Record<string, string>,
  options: Partial<ModelFromTextsOptions> = {},
): LintModel {
  return lintModelFromTexts(files, { hosts: LINT_HOSTS, ...options });
}

/** A lint model read from disk, as `baton lint` reads it. */
export function buildModel(root: string): Promise<LintModel> {
  return buildLintModel(root, LINT_HOSTS);
}
