import type { AgentFileReader } from "../agents/index.js";
import type { FileChange, HookMode, InitManifest, InitPlan, TemplateFile } from "../init/index.js";
import type { LintHost, Rule } from "../lint/index.js";

import type { HostName } from "../shared/host-names.js";

export type { HostName };

/** What one `baton init` decided before any host plans its part. */
export interface HostInstallContext {
  root: string;
  bin: string;
  hooks: HookMode;
  port: number;
  /**
   * The task store's folder from the configuration, `/`-separated: relative to the root (`specs`), or absolute
   * when it is kept outside the repository. Each host's deny rules name its files.
   */
  specsDir: string;
  /** What the last `baton init` recorded, if any. */
  previous: InitManifest | undefined;
  /** Turn the host's own sandbox on, where it has one (Claude Code); off only when asked. */
  hostSandbox: boolean;
  /** Register `baton mcp` as an MCP server of the host (`--mcp`; kept by a plain re-run). */
  mcp: boolean;
}

/** A host's edit of its own settings file, and what the manifest records of it. */
export interface HostSettingsPlan {
  write: FileChange | null;
  /** Other files its settings need (Claude Code's local settings with the hook secret, its git exclude line). */
  moreWrites?: FileChange[];
  /** Its own key of the manifest (`settings`, `codex`, `opencode`). */
  record: Partial<InitManifest>;
  /** What the edit adds and replaces, for the report (Claude Code's settings.json). */
  summary?: InitPlan["settings"];
  warnings: string[];
}

/** One host's part of `baton init` and of `--uninstall`. */
export interface HostInstaller {
  /** The settings file it edits (its hooks, its permission rules), relative to the root. */
  readonly settingsFile: string;
  /** Folders init creates for it; uninstall removes them when left empty. */
  readonly dirs: readonly string[];
  /** Whether an earlier `baton init` installed it, so a plain re-run keeps it. */
  installedIn(manifest: InitManifest): boolean;
  /** The files it writes: commands, agents, plugin. */
  files(ctx: HostInstallContext): TemplateFile[];
  settings(ctx: HostInstallContext): Promise<HostSettingsPlan>;
  /** Takes back what the manifest says it added to its settings file; null when nothing is left to do. */
  uninstallSettings(root: string, manifest: InitManifest): Promise<HostSettingsPlan | null>;
}

/**
 * An agent CLI Baton works in: how `baton init` installs into it, how its sessions reach Baton's hook
 * decisions (its settings' hooks, or its plugin), where it keeps its agents, the lint rules for its own
 * files. How its live sessions are spoken to is its `HostSession` (host-session.ts). A new host is a folder, its
 * name in shared/host-names.ts and one line in the registry (registry.ts).
 */
export interface Host {
  readonly name: HostName;
  /** As people call it: "Claude Code". */
  readonly label: string;
  /** Always installed; the others are added with `baton init --host <name>`. */
  readonly primary: boolean;
  readonly installer: HostInstaller;
  /** Where its agents are defined, when it has agent files of its own; routing reads them all. */
  readonly agentFiles: AgentFileReader | null;
  /** Where it keeps its files and what it reads in them, for lint; null when lint reads none of its files. */
  readonly lintHost: LintHost | null;
  readonly lintRules: readonly Rule[];
  /** What `baton init --host <name>` adds, in a few words ("Baton's hooks in .codex/hooks.json"). */
  readonly installs: string;
  /** How a person starts a task in it, printed after `baton init` installs it. */
  readonly firstUse: string;
  /** Its contract notes: what Baton relies on, observed with the real binary. */
  readonly contract: string;
}
