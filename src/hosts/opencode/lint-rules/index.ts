import type { Rule } from "../../../lint/index.js";
import { opencodeConfig, opencodeConfigKey } from "./config-rules.js";
import { opencodeDefinitions } from "./definition-rules.js";
import { pluginExports } from "./plugin-exports.js";

/** opencode's own files, judged by opencode's rules. */
export const opencodeLintRules: Rule[] = [
  opencodeConfig,
  opencodeConfigKey,
  opencodeDefinitions,
  pluginExports,
];
