import { readFileSync, realpathSync } from "node:fs";
import { basename, join } from "node:path";
import {
  binInsideRepository,
  type CiProvider,
  type Conflict,
  ciFiles,
  type FileChange,
  type HookMode,
  type HostSandboxSetting,
  type InitManifest,
  type InitPlan,
  MANIFEST_PATH,
  readManifest,
  renderManifest,
  resolveBin,
  sha256,
  type TemplateFile,
} from "../init/index.js";
import { BATON_DIR } from "../shared/baton-paths.js";
import { UsageError } from "../shared/errors.js";
import { fetchHealth, repositoryPort } from "../shared/hook-port.js";
import { present } from "../shared/present.js";
import type { Host, HostInstallContext, HostSettingsPlan } from "./host.js";

export interface InstallOptions {
  root: string;
  /** Each of these defaults to what the last `baton init` recorded, so a plain re-run changes nothing. */
  bin?: string | undefined;
  hooks?: HookMode | undefined;
  port?: number | undefined;
  /** Also write a CI workflow that runs `baton verify`. */
  ci?: CiProvider | undefined;
  /** Hosts to install beside the primary one (and beside those an earlier init installed). */
  hosts?: readonly Host[] | undefined;
  /** The task store's folder (HostInstallContext.specsDir); `specs` when not given. */
  specsDir?: string | undefined;
  force?: boolean | undefined;
  /** `off`: leave the host's own sandbox as the user has it. */
  hostSandbox?: HostSandboxSetting | undefined;
  /** Register `baton mcp` with the hosts (true), take it out (false), or keep what the last init did. */
  mcp?: boolean | undefined;
}

/** Baton's own folder, whatever the hosts. */
const BATON_DIRS = [BATON_DIR];

function readIfExists(path: string): string | null {
  return present(path) ? readFileSync(path, "utf8") : null;
}

function freeBackupPath(root: string, path: string, taken: Set<string>): string {
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? `${path}.bak` : `${path}.bak.${n}`;
    if (!present(join(root, candidate)) && !taken.has(candidate)) return candidate;
  }
}

interface FilePlan {
  backups: FileChange[];
  writes: FileChange[];
  conflicts: Conflict[];
  records: InitManifest["files"];
}

/** Each template against what the repository holds: unchanged, ours to replace, or the user's (a conflict). */
function planFiles(root: string, templates: TemplateFile[], prev: InitManifest | undefined): FilePlan {
  const plan: FilePlan = { backups: [], writes: [], conflicts: [], records: [] };
  const taken = new Set<string>();
  for (const file of templates) {
    const before = readIfExists(join(root, file.path));
    const recorded = prev?.files.find((f) => f.path === file.path);
    const record = { path: file.path, sha256: sha256(file.content), backup: recorded?.backup };
    plan.records.push(record);
    if (before === file.content) continue;
    const ours = before === null || (recorded !== undefined && sha256(before) === recorded.sha256);
    if (!ours) {
      const backup = freeBackupPath(root, file.path, taken);
      taken.add(backup);
      plan.conflicts.push({
        path: file.path,
        reason: recorded ? "changed since baton init wrote it" : "exists and was not written by baton init",
        hint: `Re-run with --force to overwrite it; the current file is kept as ${basename(backup)}.`,
      });
      plan.backups.push({ path: backup, action: "backup", before: null, after: before, from: file.path });
      // A file forced over twice keeps the first backup: that one holds the user's original.
      if (!record.backup) record.backup = backup;
    }
    plan.writes.push({
      path: file.path,
      action: before === null ? "create" : "update",
      before,
      after: file.content,
    });
  }
  // Files an older Baton installed that this one no longer ships: removed while still unchanged.
  for (const old of prev?.files ?? []) {
    if (templates.some((t) => t.path === old.path)) continue;
    const before = readIfExists(join(root, old.path));
    if (before !== null && sha256(before) === old.sha256)
      plan.writes.push({ path: old.path, action: "delete", before, after: null });
  }
  return plan;
}

/** The manifest's own change, first in the plan: if init dies half-way, a re-run or an uninstall still knows what is Baton's. */
function manifestChange(root: string, manifest: InitManifest): FileChange[] {
  const previous = readManifest(root);
  const text = renderManifest(manifest);
  if (text === previous?.text) return [];
  return [
    {
      path: MANIFEST_PATH,
      action: previous ? "update" : "create",
      before: previous?.text ?? null,
      after: text,
    },
  ];
}

/**
 * How the hooks reach Baton. With Claude Code's sandbox on, its HTTP hooks travel through the sandbox's
 * network proxy in the default, acceptEdits and plan modes, which refuses 127.0.0.1 (HTTP 403), so every
 * tool call would be blocked: there the per-tool-call hooks are command hooks that forward to the resident
 * server (Claude Code runs command hooks outside its sandbox in every mode). HTTP hooks, the fastest, are
 * the default only where no sandbox stands between Claude Code and Baton's server; an earlier install's
 * HTTP hooks are moved over when the sandbox is on.
 */
function hookTransport(
  asked: HookMode | undefined,
  previous: HookMode | undefined,
  hostSandbox: boolean,
): HookMode {
  if (asked === "http" && hostSandbox) {
    throw new UsageError(
      "--hooks http cannot reach Baton from a session with Claude Code's sandbox on: in the default, acceptEdits and plan permission modes Claude Code sends HTTP hooks through its sandbox proxy, which refuses 127.0.0.1, and every tool call would be blocked. Use the default (--hooks resident), or --hooks http --host-sandbox off to leave the sandbox off.",
    );
  }
  const chosen = asked ?? previous;
  if (chosen === undefined || (chosen === "http" && hostSandbox)) return hostSandbox ? "resident" : "http";
  return chosen;
}

/** What every host's part of this init is planned from: the options, else what the last init recorded. */
function installContext(
  options: InstallOptions,
  prev: InitManifest | undefined,
  decided: { hooks: HookMode; port: number | undefined; hostSandbox: boolean },
): HostInstallContext {
  return {
    root: options.root,
    bin: options.bin !== undefined ? resolveBin(options.bin) : (prev?.bin ?? resolveBin(undefined)),
    hooks: decided.hooks,
    port: decided.port ?? repositoryPort(options.root),
    specsDir: options.specsDir ?? "specs",
    previous: prev,
    hostSandbox: decided.hostSandbox,
    mcp: options.mcp ?? (prev?.mcp !== undefined || prev?.opencode?.mcpServer === true),
  };
}

/** Everything `baton init` would do, for every host it covers, read and validated before a single byte is written. */
export async function planInstall(options: InstallOptions, hosts: readonly Host[]): Promise<InitPlan> {
  const { root } = options;
  const prev = readManifest(root)?.manifest;
  const hostSandbox = (options.hostSandbox ?? prev?.hostSandbox ?? "on") === "on";
  const hooks = hookTransport(options.hooks, prev?.hooks, hostSandbox);
  const port =
    hooks === "http" ? (options.port ?? prev?.port ?? (await freeRepositoryPort(root))) : undefined;
  const ci = options.ci ?? prev?.ci;
  const ctx = installContext(options, prev, { hooks, port, hostSandbox });
  const active = activeHosts(hosts, options.hosts ?? [], prev);
  const files = planFiles(root, [...active.flatMap((h) => h.installer.files(ctx)), ...ciFiles(ci)], prev);
  const settings: HostSettingsPlan[] = [];
  for (const host of active) settings.push(await host.installer.settings(ctx));
  const primary = settings.find((s) => s.summary) ?? settings[0]!;
  const dirs = [
    ...BATON_DIRS,
    ...active.flatMap((h) => h.installer.dirs),
    ...(ci ? [".github", ".github/workflows"] : []),
  ];
  const manifest: InitManifest = {
    version: 1,
    bin: ctx.bin,
    hooks,
    ...(port === undefined ? {} : { port }),
    ...(ci === undefined ? {} : { ci }),
    ...(ctx.hostSandbox ? {} : { hostSandbox: "off" as const }),
    ...Object.assign({}, ...settings.map((s) => s.record)),
    files: files.records.map(({ backup, ...rest }) => (backup ? { ...rest, backup } : rest)),
    dirs: [...new Set([...(prev?.dirs ?? []), ...dirs.filter((d) => !present(join(root, d)))])],
  };
  const writes = [
    ...files.writes,
    ...settings.flatMap((s) => [...(s.write ? [s.write] : []), ...(s.moreWrites ?? [])]),
  ];
  // Backups are listed even without --force, so a dry run shows what --force would do.
  const changes = [...files.backups, ...manifestChange(root, manifest), ...writes];
  return {
    root,
    mode: "install",
    bin: ctx.bin,
    hooks,
    ...(port === undefined ? {} : { port }),
    hosts: active.map((h) => h.name),
    changes,
    conflicts: options.force ? [] : files.conflicts,
    kept: [],
    removeDirs: [],
    settings: primary.summary ?? noSettingsChange(active[0]?.installer.settingsFile ?? ""),
    warnings: [...binWarning(root, ctx.bin), ...settings.flatMap((s) => s.warnings)],
    upToDate: changes.length === 0 && files.conflicts.length === 0,
  };
}

/**
 * The hosts named (`--host opencode` installs opencode's files only), with those installed before;
 * without a name, what was installed before, or the primary host (Claude Code) the first time.
 */
function activeHosts(hosts: readonly Host[], named: readonly Host[], prev: InitManifest | undefined): Host[] {
  const installed = hosts.filter((h) => prev && h.installer.installedIn(prev));
  return hosts.filter(
    (h) =>
      named.includes(h) ||
      installed.includes(h) ||
      (named.length === 0 && installed.length === 0 && h.primary),
  );
}

const noSettingsChange = (path: string) => ({
  path,
  hooksAdded: [],
  hooksRemoved: [],
  permissionsAdded: [],
  permissionsRemoved: [],
});

/** What answers on a port: nothing, this repository's Baton server, or something else. */
async function portHolder(port: number, root: string): Promise<"free" | "ours" | "taken"> {
  const answer = await fetchHealth(port);
  if (answer === null) return "free";
  const answered = answer.body["root"];
  return answer.baton && typeof answered === "string" && realPath(answered) === realPath(root)
    ? "ours"
    : "taken";
}

const realPath = (path: string) => {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
};

/** The repository's own port, or the next one when another program or repository holds it now. */
async function freeRepositoryPort(root: string): Promise<number> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const port = repositoryPort(root, attempt);
    if ((await portHolder(port, root)) !== "taken") return port;
  }
  return repositoryPort(root);
}

/** Baton run from inside the repository can be rewritten by the agents' own commands, and its hooks with it. */
function binWarning(root: string, bin: string): string[] {
  const inside = binInsideRepository(root, bin);
  if (inside === null) return [];
  return [
    `the hosts run Baton from inside this repository (${inside}), where an agent's commands can rewrite it: its hooks would then run their code. Install Baton outside the repository (\`npm install -g\`, or another folder) and run \`baton init --bin <that path>\` again.`,
  ];
}
