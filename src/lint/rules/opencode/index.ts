import type { Rule } from "../../types.js";
import { opencodeConfig, opencodeConfigKey } from "./config.js";
import { opencodeDefinitions } from "./definitions.js";
import { pluginExports } from "./plugin-exports.js";

/** opencode's own files, judged by opencode's rules. */
export const opencodeRules: Rule[] = [opencodeConfig, opencodeConfigKey, opencodeDefinitions, pluginExports];
