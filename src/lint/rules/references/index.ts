import type { Rule } from "../../rule-types.js";
import { missingFile } from "./missing-file.js";
import { unknownAgent } from "./unknown-agent.js";
import { unknownSkill } from "./unknown-skill.js";

export const referencesRules: Rule[] = [unknownAgent, unknownSkill, missingFile];
