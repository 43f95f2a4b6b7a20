import type { Rule } from "../types.js";
import { delegationRules } from "./delegation/index.js";
import { frontmatterRules } from "./frontmatter/index.js";
import { gitRules } from "./git/index.js";
import { hooksRules } from "./hooks/index.js";
import { opencodeRules } from "./opencode/index.js";
import { referencesRules } from "./references/index.js";
import { stateRules } from "./state/index.js";

/** Every rule, in the order `--list-rules` and the docs show them. */
export const RULES: Rule[] = [
  ...frontmatterRules,
  ...referencesRules,
  ...stateRules,
  ...delegationRules,
  ...hooksRules,
  ...gitRules,
  ...opencodeRules,
];
