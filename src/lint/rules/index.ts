import type { Rule } from "../rule-types.js";
import { delegationRules } from "./delegation/index.js";
import { frontmatterRules } from "./frontmatter/index.js";
import { gitRules } from "./git/index.js";
import { referencesRules } from "./references/index.js";
import { stateRules } from "./state/index.js";

/**
 * The rules for every host's files, in the order `--list-rules` and the docs show them; each host adds the
 * rules for its own files after these (src/hosts/<name>/lint-rules/).
 */
export const RULES: Rule[] = [
  ...frontmatterRules,
  ...referencesRules,
  ...stateRules,
  ...delegationRules,
  ...gitRules,
];
