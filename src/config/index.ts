export { DEFAULT_LANGUAGES, DEFAULT_PHASE_ROUTING, DEFAULT_ROUTING } from "./defaults.js";
export { CONFIG_FILE_NAMES, findRepoRoot, loadConfig, resolveConfig } from "./load.js";
export type { ArtifactNaming, BatonConfig, LanguageRoute, PhaseRoutingRule } from "./schema.js";
export { BatonConfigFile } from "./schema.js";
