/** The agent CLIs Baton works in: each host's folder, the registry, and what the CLI asks of them. */
import type { AgentFileReader } from "../agents/index.js";
import type { LintHost, Rule } from "../lint/index.js";
import { UsageError } from "../shared/index.js";
import type { Host } from "./host.js";

export type {
  Host,
  HostInstallContext,
  HostInstaller,
  HostName,
  HostSettingsPlan,
} from "./host.js";

import type { HostSession } from "./host-session.js";
import { HOSTS } from "./registry.js";
import { HOST_SESSIONS } from "./session-registry.js";

export type { GateDelegation, HostSession } from "./host-session.js";
export { type InstallOptions, planInstall } from "./install-hosts.js";
export { HOSTS } from "./registry.js";
export { type InitOptions, runInit } from "./run-init.js";
export { hookSession } from "./session-registry.js";
export { planUninstall } from "./uninstall-hosts.js";

/** `a, b or c`, for messages. */
function spoken(words: readonly string[], last: "and" | "or"): string {
  return words.length <= 1
    ? (words[0] ?? "")
    : `${words.slice(0, -1).join(", ")} ${last} ${words[words.length - 1]}`;
}

/** `"a", "b" or "c"`: the names a host option accepts. */
function listed(hosts: readonly Host[]): string {
  return spoken(hosts.map((h) => `"${h.name}"`).sort(), "or");
}

/** "Claude Code, opencode and Codex CLI", in the registry's order. */
export function hostLabels(hosts: readonly Host[]): string {
  return spoken(
    hosts.map((h) => h.label),
    "and",
  );
}

/** The host `baton init --host` names; a usage error listing the hosts, and what each adds, otherwise. */
export function hostNamed(name: string): Host {
  const host = HOSTS.find((h) => h.name === name);
  if (host) return host;
  throw new UsageError(`--host must be ${listed(HOSTS)}, got "${name}"`, {
    hint: HOSTS.filter((h) => !h.primary)
      .map((h) => `\`--host ${h.name}\` adds ${h.installs}`)
      .join("; ")
      .concat("."),
  });
}

/** The host whose words gate-in uses (`gate-in --host`): one with in-session gates; the primary one by default. */
export function sessionHostNamed(name: string | undefined): { host: Host; session: HostSession } {
  const gated = HOSTS.filter((h) => HOST_SESSIONS[h.name] !== null);
  const host = name === undefined ? HOSTS.find((h) => h.primary) : gated.find((h) => h.name === name);
  const session = host ? HOST_SESSIONS[host.name] : null;
  if (host && session) return { host, session };
  throw new UsageError(`--host must be ${listed(gated)}, got "${name}"`);
}

/** Where routing finds agents: every host's agent files, in the registry's order. */
export function agentFileReaders(): AgentFileReader[] {
  return HOSTS.flatMap((h) => (h.agentFiles ? [h.agentFiles] : []));
}

/** Every host whose files lint reads, the primary one first. */
export function lintHosts(): LintHost[] {
  return HOSTS.flatMap((h) => (h.lintHost ? [h.lintHost] : []));
}

/** The lint rules of every host's own files. */
export function hostLintRules(): Rule[] {
  return HOSTS.flatMap((h) => h.lintRules);
}
