import type { Rule } from "../../rule-types.js";
import { invalidYaml } from "./invalid-yaml.js";
import { missingDescription } from "./missing-description.js";
import { missingRequired } from "./missing-required.js";
import { nonstandardYaml } from "./nonstandard-yaml.js";
import { unknownKey } from "./unknown-key.js";
import { unknownModel } from "./unknown-model.js";
import { unknownTool } from "./unknown-tool.js";

export const frontmatterRules: Rule[] = [
  invalidYaml,
  nonstandardYaml,
  missingRequired,
  missingDescription,
  unknownKey,
  unknownTool,
  unknownModel,
];
