import { existsSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { resolveBin } from "./bin.js";
import { type CiProvider, ciFiles } from "./ci.js";
import { type InitManifest, MANIFEST_PATH, readManifest, renderManifest, sha256 } from "./manifest.js";
import { OPENCODE_DIRS, opencodeFiles } from "./opencode.js";
import { planOpencodeConfigInstall, readOpencodeConfig, storeEditPatterns } from "./opencode-config.js";
import type { Conflict, FileChange, InitPlan } from "./plan.js";
import {
  CODEX_HOOKS_PATH,
  codexHookEntries,
  DEFAULT_HOOK_PORT,
  type HookMode,
  hookEntries,
  planSettingsInstall,
  readSettings,
  SETTINGS_PATH,
} from "./settings.js";
import { agentFiles, commandFiles, permissionRules, type TemplateFile } from "./templates.js";

export interface InstallOptions {
  root: string;
  /** Each of these defaults to what the last `baton init` recorded, so a plain re-run changes nothing. */
  bin?: string | undefined;
  hooks?: HookMode | undefined;
  port?: number | undefined;
  /** Also write a CI workflow that runs `baton verify`. */
  ci?: CiProvider | undefined;
  /** Also install Baton's hooks for Codex CLI (`.codex/hooks.json`). */
  codex?: boolean | undefined;
  /** Also install Baton's commands, agents and plugin for opencode (`.opencode/`, opencode.json). */
  opencode?: boolean | undefined;
  /** The task store's folder relative to the root (opencode's deny rules name its files). */
  specsDir?: string | undefined;
  force?: boolean | undefined;
}

const DIRS = [".claude", ".claude/commands", ".claude/agents", ".baton"];

function readIfExists(path: string): string | null {
  return existsSync(path) ? readFileSync(path, "utf8") : null;
}

function freeBackupPath(root: string, path: string, taken: Set<string>): string {
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? `${path}.bak` : `${path}.bak.${n}`;
    if (!existsSync(join(root, candidate)) && !taken.has(candidate)) return candidate;
  }
}

/** The change that writes a settings file (created, or edited in place). */
function settingsWrite(
  path: string,
  file: { exists: boolean; text: string | null },
  after: string,
): FileChange {
  return { path, action: file.exists ? "update" : "create", before: file.text, after };
}

/** Everything `baton init` would do, read and validated before a single byte is written. */
export async function planInstall(options: InstallOptions): Promise<InitPlan> {
  const { root } = options;
  const previous = readManifest(root);
  const prev = previous?.manifest;
  const settingsFile = readSettings(root);
  const bin = options.bin !== undefined ? resolveBin(options.bin) : (prev?.bin ?? resolveBin(undefined));
  const hooks = options.hooks ?? prev?.hooks ?? "command";
  const port = hooks === "http" ? (options.port ?? prev?.port ?? DEFAULT_HOOK_PORT) : undefined;

  const ci = options.ci ?? prev?.ci;
  const opencode = options.opencode || prev?.opencode !== undefined;
  const templates: TemplateFile[] = [
    ...commandFiles(bin),
    ...agentFiles(),
    ...ciFiles(ci),
    ...(opencode ? opencodeFiles(bin) : []),
  ];
  const backups: FileChange[] = [];
  const writes: FileChange[] = [];
  const conflicts: Conflict[] = [];
  const records: InitManifest["files"] = [];
  const taken = new Set<string>();
  for (const file of templates) {
    const before = readIfExists(join(root, file.path));
    const recorded = prev?.files.find((f) => f.path === file.path);
    const record = { path: file.path, sha256: sha256(file.content), backup: recorded?.backup };
    if (before === file.content) {
      records.push(record);
      continue;
    }
    const ours = before === null || (recorded !== undefined && sha256(before) === recorded.sha256);
    if (!ours) {
      const backup = freeBackupPath(root, file.path, taken);
      taken.add(backup);
      conflicts.push({
        path: file.path,
        reason: recorded ? "changed since baton init wrote it" : "exists and was not written by baton init",
        hint: `Re-run with --force to overwrite it; the current file is kept as ${basename(backup)}.`,
      });
      backups.push({ path: backup, action: "backup", before: null, after: before, from: file.path });
      // A file forced over twice keeps the first backup: that one holds the user's original.
      if (!record.backup) record.backup = backup;
    }
    writes.push({
      path: file.path,
      action: before === null ? "create" : "update",
      before,
      after: file.content,
    });
    records.push(record);
  }
  // Files an older Baton installed that this one no longer ships: removed while still unchanged.
  for (const old of prev?.files ?? []) {
    if (templates.some((t) => t.path === old.path)) continue;
    const before = readIfExists(join(root, old.path));
    if (before !== null && sha256(before) === old.sha256)
      writes.push({ path: old.path, action: "delete", before, after: null });
  }

  const settings = await planSettingsInstall(
    settingsFile,
    hookEntries(bin, hooks, port ?? DEFAULT_HOOK_PORT),
    permissionRules(bin),
    prev?.settings,
  );
  if (settings.changed) writes.push(settingsWrite(SETTINGS_PATH, settingsFile, settings.after));

  // Codex CLI: the same hooks in its own hooks file, recorded beside the Claude Code settings.
  const codex = options.codex || prev?.codex !== undefined;
  let codexRecord: InitManifest["codex"];
  if (codex) {
    const file = readSettings(root, CODEX_HOOKS_PATH);
    const planned = await planSettingsInstall(file, codexHookEntries(bin), [], prev?.codex, CODEX_HOOKS_PATH);
    if (planned.changed) writes.push(settingsWrite(CODEX_HOOKS_PATH, file, planned.after));
    codexRecord = planned.record;
  }
  let opencodeRecord: InitManifest["opencode"];
  if (opencode) {
    const file = readOpencodeConfig(root, prev?.opencode?.path);
    const planned = planOpencodeConfigInstall(
      file,
      storeEditPatterns(options.specsDir ?? "specs"),
      prev?.opencode,
    );
    if (planned.changed)
      writes.push({
        path: file.path,
        action: file.exists ? "update" : "create",
        before: file.text,
        after: planned.after,
      });
    opencodeRecord = planned.record;
  }

  const manifest: InitManifest = {
    version: 1,
    bin,
    hooks,
    ...(port === undefined ? {} : { port }),
    ...(ci === undefined ? {} : { ci }),
    ...(codexRecord ? { codex: codexRecord } : {}),
    ...(opencodeRecord ? { opencode: opencodeRecord } : {}),
    files: records.map(({ backup, ...rest }) => (backup ? { ...rest, backup } : rest)),
    dirs: [
      ...new Set([
        ...(prev?.dirs ?? []),
        ...[
          ...DIRS,
          ...(ci ? [".github", ".github/workflows"] : []),
          ...(codex ? [".codex"] : []),
          ...(opencode ? OPENCODE_DIRS : []),
        ].filter((d) => !existsSync(join(root, d))),
      ]),
    ],
    settings: settings.record,
  };
  const manifestText = renderManifest(manifest);
  // The manifest goes first: if init dies half-way, a re-run or an uninstall still knows what is Baton's.
  const manifestChange: FileChange[] =
    manifestText === previous?.text
      ? []
      : [
          {
            path: MANIFEST_PATH,
            action: previous ? "update" : "create",
            before: previous?.text ?? null,
            after: manifestText,
          },
        ];
  // Backups are listed even without --force, so a dry run shows what --force would do.
  const changes = [...backups, ...manifestChange, ...writes];
  return {
    root,
    mode: "install",
    bin,
    hooks,
    ...(port === undefined ? {} : { port }),
    hosts: [...(codex ? (["codex"] as const) : []), ...(opencode ? (["opencode"] as const) : [])],
    changes,
    conflicts: options.force ? [] : conflicts,
    kept: [],
    removeDirs: [],
    settings: {
      path: SETTINGS_PATH,
      hooksAdded: settings.added,
      hooksRemoved: settings.removed,
      permissionsAdded: settings.permissionsAdded,
      permissionsRemoved: [],
    },
    warnings: hooks === "http" ? httpWarnings(settingsFile.value, port ?? DEFAULT_HOOK_PORT) : [],
    upToDate: changes.length === 0 && conflicts.length === 0,
  };
}

/** `allowedHttpHookUrls` in the user's settings can silently disable the HTTP hooks; say so. */
function httpWarnings(settings: Record<string, unknown>, port: number): string[] {
  const patterns = settings["allowedHttpHookUrls"];
  if (!Array.isArray(patterns)) return [];
  const url = `http://127.0.0.1:${port}/hooks/stop`;
  const matches = patterns.some(
    (p) =>
      typeof p === "string" &&
      new RegExp(`^${p.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*")}$`).test(url),
  );
  return matches
    ? []
    : [
        `${SETTINGS_PATH} sets allowedHttpHookUrls without a pattern matching ${url}: Claude Code will not call Baton's hooks. Add "http://127.0.0.1:${port}/*" to it.`,
      ];
}
