/** The library surface of Baton: configuration, the task store, plans, the engine, the hosts and the runners. */
export * from "./config/index.js";
export * from "./engine/index.js";
export { agentFileReaders, HOSTS, type Host, type HostName } from "./hosts/index.js";
export * from "./plan/index.js";
export * from "./runners/index.js";
export * from "./shared/index.js";
// Not in shared/index.js: the CLI imports that barrel, and would then load the process helper for every command.
export {
  DEFAULT_KILL_GRACE_MS,
  type ProcessFailureReason,
  type ProcessResult,
  type RunProcessOptions,
  runProcess,
} from "./shared/process.js";
export * from "./state/index.js";
