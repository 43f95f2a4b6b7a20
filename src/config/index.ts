export type {
  ArtifactNaming,
  BatonConfig,
  ConfiguredCheck,
  LanguageRoute,
  PhaseRoutingRule,
} from "./config-schema.js";
export { BatonConfigFile, planApprovalRequired, SandboxMode } from "./config-schema.js";
export { DEFAULT_LANGUAGES, DEFAULT_PHASE_ROUTING, DEFAULT_ROUTING } from "./defaults.js";
export {
  approvalsAtCommit,
  CONFIG_FILE_NAMES,
  findRepoRoot,
  loadConfig,
  resolveConfig,
} from "./load-config.js";
