/** Runners: how Baton starts an agent for one delegation and learns how it ended. */

export { addUsage, failWithoutOutput, finish as finishRun } from "./agent-process.js";
export {
  CLAUDE_PERMISSION_MODES,
  ClaudeRunner,
  ClaudeRunnerOptions,
  claudeInvocation,
} from "./claude.js";
export {
  CLAUDE_INSTALL_HINT,
  type ClaudeBinaryLookup,
  type ClaudeBinarySource,
  findOnPath,
  locateBundledClaude,
  locateClaude,
  platformPackages,
} from "./claude-binary.js";
export { ClaudeStreamInterpreter, resultFailure, resultUsage, toolLabel } from "./claude-stream.js";
export { CommandRunner, CommandTemplate, commandInvocation, parseCommandTemplate } from "./command.js";
export { delegationEnv, PLACEHOLDERS, type Placeholder } from "./context.js";
export {
  ClaudeRunnerConfig,
  CommandRunnerConfig,
  createRunner,
  RunnerConfig,
  ScriptedRunnerConfig,
} from "./factory.js";
export { removeDeadRunsFiles } from "./private-file.js";
export {
  AgentDefinition,
  DelegationContext,
  PhaseContext,
  type RunFailureReason,
  type Runner,
  type RunnerDescription,
  type RunnerEvent,
  type RunnerKind,
  type RunOptions,
  type RunOutcome,
  type RunRequest,
  RunUsage,
} from "./runner-types.js";
export { type SandboxPolicy, sandboxed } from "./sandbox.js";
export { probeSandbox, type SandboxProbe } from "./sandbox-probe.js";
export { runSandboxed } from "./sandbox-run.js";
export { PhaseScript, parseScript, Script, ScriptStep, selectSteps } from "./script.js";
export {
  findPackageRoot,
  loadScript,
  ScriptedRunner,
  type ScriptedRunnerOptions,
  scriptedAgentEntry,
} from "./scripted.js";
export { parseStepMarker, parseUsageMarker, STEP_MARKER, USAGE_MARKER } from "./step-marker.js";
