import { mkdirSync, rmdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, relative, resolve, sep } from "node:path";
import { type BatonConfig, findRepoRoot, loadConfig } from "../../config/index.js";
import { publishedKeyPath, signingKey } from "../../evidence/index.js";
import { HOSTS, type Host, hostLabels, hostNamed, lintHosts, runInit } from "../../hosts/index.js";
import {
  CI_PROVIDERS,
  HOOK_MODES,
  HOST_SANDBOX_SETTINGS,
  type InitResult,
  readManifest,
} from "../../init/index.js";
import { INIT_MANIFEST } from "../../shared/baton-paths.js";
import { runGit } from "../../shared/git.js";
import { UsageError } from "../../shared/index.js";
import { OPERATION_COMMANDS } from "../../shared/operation-names.js";
import { present } from "../../shared/present.js";
import { oneOf } from "./choice.js";

export interface InitCommandOptions {
  repo: string;
  dir?: string | undefined;
  dryRun?: boolean | undefined;
  uninstall?: boolean | undefined;
  force?: boolean | undefined;
  hooks?: string | undefined;
  port?: string | undefined;
  bin?: string | undefined;
  ci?: string | undefined;
  host?: string | undefined;
  hostSandbox?: string | undefined;
  /** `--mcp` registers `baton mcp` with Claude Code (`.mcp.json`); `--no-mcp` takes it out. */
  mcp?: boolean | undefined;
}

/** `--port`: a TCP port, for HTTP hooks only. */
function hookPort(options: InitCommandOptions): number | undefined {
  if (options.port === undefined) return undefined;
  const port = /^\d{1,5}$/.test(options.port) ? Number(options.port) : Number.NaN;
  if (!(port >= 1 && port <= 65535)) {
    throw new UsageError(`--port must be a number from 1 to 65535, got "${options.port}"`);
  }
  if (options.hooks !== "http")
    throw new UsageError("--port only applies to HTTP hooks", { hint: "Add --hooks http." });
  return port;
}

/** The options, checked: words init knows, and none that cannot go together; refused before anything is read. */
function initArgs(options: InitCommandOptions) {
  const ci = oneOf("--ci", CI_PROVIDERS, options.ci);
  if (options.uninstall && (options.hooks || options.bin !== undefined || options.force)) {
    throw new UsageError("--uninstall takes no --hooks, --port, --bin or --force");
  }
  const hostSandbox = oneOf("--host-sandbox", HOST_SANDBOX_SETTINGS, options.hostSandbox);
  if (options.bin !== undefined && options.bin.trim() === "") throw new UsageError("--bin must not be empty");
  const hooks = oneOf("--hooks", HOOK_MODES, options.hooks);
  return { ci, hostSandbox, hooks, port: hookPort(options) };
}

/** `baton init [dir]`: installs (or removes) the slash commands, agents and hooks for Claude Code. */
export async function init(options: InitCommandOptions): Promise<InitResult> {
  // The primary host (Claude Code) is always installed; --host adds another beside it.
  const host = options.host === undefined ? undefined : hostNamed(options.host);
  const args = initArgs(options);
  let root: string;
  if (options.dir === undefined) root = findRepoRoot(options.repo);
  else {
    root = resolve(options.repo, options.dir);
    if (!present(root) || !statSync(root).isDirectory()) {
      throw new UsageError(`${options.dir} is not a folder`, {
        hint: "Create it first, or name the repository root.",
      });
    }
  }
  const unpublished = options.uninstall && !options.dryRun ? await unpublishEvidenceKey(root) : null;
  const installedPort = options.uninstall ? readManifest(root)?.manifest.port : undefined;
  // Read once: every host's deny rules name its store, and the lint below judges by it.
  const config = options.uninstall ? undefined : await loadConfig(root);
  const result = await runInit({
    root,
    bin: options.bin,
    hooks: args.hooks,
    port: args.port,
    ci: args.ci,
    hosts: host ? [host] : [],
    specsDir: config ? storeFolder(root, config) : undefined,
    force: options.force,
    hostSandbox: args.hostSandbox,
    mcp: options.mcp,
    dryRun: options.dryRun,
    uninstall: options.uninstall,
  });
  if (result.written && !options.uninstall) publishEvidenceKey(root, result);
  if (config) result.warnings.push(...(await ownStoreWriters(root, config)));
  if (unpublished) result.changes.push({ action: "delete", path: unpublished });
  if (options.uninstall && result.written) await stopServers(root, installedPort);
  return result;
}

/**
 * The repository's own commands, skills, agents and scripts that write the task store themselves (the original
 * system's /learn, /review, /meta, …), and the standing instructions (CLAUDE.md, AGENTS.md, rules) that tell the
 * model to: in a session Baton refuses those writes, so init says which, where, and what to use instead, rather
 * than let the first session find out. `baton lint` names each place again.
 */
async function ownStoreWriters(root: string, config: BatonConfig): Promise<string[]> {
  let findings: { file: string; line: number; rule: string }[];
  try {
    const { lint } = await import("../../lint/index.js");
    findings = (await lint(root, { hosts: lintHosts(), config, only: [WRITES_RULE, INSTRUCTS_RULE] }))
      .findings;
  } catch {
    return [];
  }
  const warnings: string[] = [];
  const writes = findings.filter((f) => f.rule === WRITES_RULE);
  if (writes.length > 0)
    warnings.push(
      `${countFiles(writes)} of this repository's own commands, skills or scripts write specs/state.json or TODO.md themselves (${places(writes)}): in a session Baton refuses those writes. Change tasks through Baton instead (/task, ${OPERATION_COMMANDS}; \`baton task status N <status>\` outside a session); \`baton lint\` lists every place.`,
    );
  const instructs = findings.filter((f) => f.rule === INSTRUCTS_RULE);
  if (instructs.length > 0)
    warnings.push(
      `${instructs.length} line(s) of this repository's standing instructions (CLAUDE.md, AGENTS.md, rules) tell the model to write task status, the store or its own session commits (${places(instructs)}): Baton now does that at its gates and refuses the model's writes, so the model would follow them into refusals. Reword them to the slash commands (${OPERATION_COMMANDS}); \`baton lint --only ${INSTRUCTS_RULE}\` lists every line.`,
    );
  return warnings;
}

const WRITES_RULE = "delegation/direct-state-write";
const INSTRUCTS_RULE = "delegation/instructed-store-write";
const countFiles = (findings: readonly { file: string }[]) => new Set(findings.map((f) => f.file)).size;
const places = (findings: readonly { file: string; line: number }[]) =>
  `${findings
    .slice(0, 5)
    .map((f) => `${f.file}:${f.line}`)
    .join(", ")}${findings.length > 5 ? `, and ${findings.length - 5} more` : ""}`;

/** Hooks gone, their server goes too: nothing of Baton's keeps answering for this repository. */
async function stopServers(root: string, installedPort: number | undefined): Promise<void> {
  const { stopRepositoryServers } = await import("../../hooks/index.js");
  await stopRepositoryServers(root, installedPort === undefined ? [] : [installedPort]);
}

/**
 * Uninstalling takes back the public key init put there, unless git already tracks it: committed
 * evidence names it, and `baton verify` on any clone needs it.
 */
async function unpublishEvidenceKey(root: string): Promise<string | null> {
  const path = publishedKeyPath(root);
  const rel = relative(root, path).split(sep).join("/");
  if (!present(path)) return null;
  if ((await runGit(root, ["ls-files", "--error-unmatch", "--", rel])).ok) return null;
  rmSync(path);
  for (const dir of [dirname(path), dirname(dirname(path))]) {
    try {
      rmdirSync(dir);
    } catch {
      break;
    }
  }
  return rel;
}

/**
 * Adoption commits this account's public evidence key with the hooks, so the history names the key it
 * trusts from its first Baton commit on (the private key stays in batonKeyDir, outside the repository).
 */
function publishEvidenceKey(root: string, result: InitResult): void {
  const path = publishedKeyPath(root);
  if (present(path)) return;
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, signingKey().publicPem);
  result.changes.push({ action: "create", path: relative(root, path).split(sep).join("/") });
}

/**
 * The store folder as every host's deny rules name it, `/`-separated: relative to the root, or absolute when the
 * configuration keeps it outside the repository (a host whose rules cannot name such a path refuses it).
 */
function storeFolder(root: string, config: BatonConfig): string {
  const rel = relative(root, config.specsDir).split(sep).join("/");
  if (rel === "") return ".";
  return rel.startsWith("..") || isAbsolute(rel) ? config.specsDir.split(sep).join("/") : rel;
}

const VERB = {
  create: "created",
  update: "updated",
  delete: "removed",
  backup: "backed up",
  restore: "restored",
};
const WOULD = {
  create: "would create",
  update: "would update",
  delete: "would remove",
  backup: "would back up",
  restore: "would restore",
};

function changeLine(change: InitResult["changes"][number], dryRun: boolean): string {
  const verb = (dryRun ? WOULD : VERB)[change.action];
  if (change.action === "backup") return `  ${verb} ${change.from} → ${change.path}`;
  if (change.action === "restore") return `  ${verb} ${change.path} from ${change.from}`;
  return `  ${verb} ${change.path}`;
}

export function formatInit(result: InitResult): string {
  const out: string[] = [];
  if (result.notInstalled) {
    return `Baton is not installed in ${result.root} (no ${INIT_MANIFEST}); nothing to remove.`;
  }
  if (result.dryRun) {
    for (const change of result.changes) if (change.diff) out.push(change.diff.trimEnd());
    if (out.length > 0) out.push("");
  }
  if (result.conflicts.length > 0) {
    out.push(
      `Nothing was written: ${result.conflicts.length === 1 ? "a file" : "files"} Baton would overwrite:`,
    );
    for (const c of result.conflicts) out.push(`  conflict: ${c.path} ${c.reason}`, `    ${c.hint}`);
    if (result.dryRun) out.push("(The diffs above show what --force would do.)");
    return out.join("\n");
  }
  if (result.upToDate) {
    out.push(`Baton's ${integration(result)} in ${result.root} is up to date; nothing changed.`);
  } else {
    const what = result.mode === "install" ? "Installing" : "Removing";
    out.push(
      `${what} Baton's ${integration(result)} in ${result.root}${result.dryRun ? " (dry run, nothing written)" : ""}:`,
    );
    for (const change of result.changes) out.push(changeLine(change, result.dryRun));
    for (const k of result.kept) out.push(`  kept ${k.path}: ${k.reason}`);
  }
  const s = result.settings;
  const hookNames = (list: typeof s.hooksAdded) => list.map((h) => h.event).join(", ");
  if (s.hooksAdded.length > 0) out.push(`  hooks added to ${s.path}: ${hookNames(s.hooksAdded)}`);
  if (s.hooksRemoved.length > 0) out.push(`  hooks removed from ${s.path}: ${hookNames(s.hooksRemoved)}`);
  if (s.permissionsAdded.length > 0) out.push(`  permissions allowed: ${s.permissionsAdded.join(", ")}`);
  if (s.permissionsRemoved.length > 0) out.push(`  permissions removed: ${s.permissionsRemoved.join(", ")}`);
  for (const w of result.warnings) out.push(`warning: ${w}`);
  if (result.mode === "install" && !result.upToDate) {
    const hooks =
      result.hooks === "http"
        ? `HTTP hooks on 127.0.0.1:${result.port} (each Claude Code session starts \`baton serve\` there; a tool call is blocked while it cannot answer)`
        : result.hooks === "resident"
          ? "command hooks that forward to a resident `baton serve` (SessionStart starts it and it ends with the last session; without it they run in-process), which reach Baton in every permission mode with Claude Code's sandbox on"
          : "command hooks";
    out.push(`Baton runs as \`${result.bin}\`; ${hooks}.`);
    if (!result.dryRun) for (const host of hostsOf(result)) out.push(host.firstUse);
  }
  return out.join("\n");
}

/** The hosts this init covered, in the registry's order. */
function hostsOf(result: InitResult): Host[] {
  return HOSTS.filter((h) => result.hosts?.includes(h.name));
}

/** "Claude Code integration", "Claude Code and opencode integration". */
function integration(result: InitResult): string {
  const hosts = hostsOf(result);
  return `${hostLabels(hosts.length > 0 ? hosts : HOSTS.filter((h) => h.primary))} integration`;
}
