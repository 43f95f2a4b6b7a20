import type { Rule } from "../../rule-types.js";
import { heredocNoExpand } from "./heredoc-no-expand.js";
import { trackedControlFiles } from "./tracked-control-files.js";

export const gitRules: Rule[] = [trackedControlFiles, heredocNoExpand];
