export type {
  BatonConfig,
  ConfiguredCheck,
  LanguageRoute,
  PhaseRoutingRule,
} from "./config-schema.js";
export { BatonConfigFile, planApprovalRequired, ReportFormat, SandboxMode } from "./config-schema.js";
export { DEFAULT_LANGUAGES, DEFAULT_PHASE_ROUTING, DEFAULT_ROUTING } from "./defaults.js";
export {
  approvalsAtCommit,
  CONFIG_FILE_NAMES,
  findRepoRoot,
  loadConfig,
  resolveConfig,
} from "./load-config.js";
export {
  ArtifactNaming,
  type ConventionSource,
  SlugSeparator,
  TASK_TYPE_FIELDS,
  TASK_TYPE_KEYS,
  TaskPosition,
  type TaskTypeField,
  type TaskTypeKey,
} from "./repository-conventions.js";
