import {
  DEFAULT_HOOK_PORT,
  planSettingsInstall,
  planSettingsUninstall,
  readSettings,
  settingsRemoval,
  settingsWrite,
} from "../../init/index.js";
import type { HostInstaller, HostSettingsPlan } from "../host.js";
import { agentFiles, commandFiles, permissionRules } from "./command-files.js";
import { hookSecretInstall, hookSecretUninstall } from "./hook-secret-settings.js";
import { hookEntries, SETTINGS_PATH } from "./hook-settings.js";
import { mcpInstall, mcpUninstall } from "./mcp-settings.js";
import { missingSandboxTools, sandboxSettings } from "./sandbox-settings.js";

/**
 * Claude Code's part of `baton init`: slash commands and Baton's agents in `.claude/`, and Baton's hooks
 * and permission rules in `.claude/settings.json`, beside the user's own.
 */
export const claudeInstaller: HostInstaller = {
  settingsFile: SETTINGS_PATH,
  dirs: [".claude", ".claude/commands", ".claude/agents"],
  installedIn: (manifest) => manifest.settings !== undefined,
  files: ({ bin }) => [...commandFiles(bin), ...agentFiles()],
  async settings({
    root,
    bin,
    hooks,
    port,
    previous,
    specsDir,
    hostSandbox,
    mcp,
  }): Promise<HostSettingsPlan> {
    const file = readSettings(root, SETTINGS_PATH);
    const planned = await planSettingsInstall(
      file,
      hookEntries(bin, hooks, port),
      permissionRules(bin),
      previous?.settings,
      SETTINGS_PATH,
      hostSandbox ? sandboxSettings(root, bin, specsDir) : [],
    );
    const secret = await hookSecretInstall(root, hooks, previous);
    const mcpServer = mcp
      ? await mcpInstall(root, bin, previous)
      : { writes: await mcpUninstall(root, previous), record: {} };
    return {
      write: settingsWrite(SETTINGS_PATH, file, planned.after, planned.changed),
      moreWrites: [...secret.writes, ...mcpServer.writes],
      record: { settings: planned.record, ...secret.record, ...mcpServer.record },
      summary: {
        path: SETTINGS_PATH,
        hooksAdded: planned.added,
        hooksRemoved: planned.removed,
        permissionsAdded: planned.permissionsAdded,
        permissionsRemoved: [],
      },
      warnings: [
        ...(hooks === "http" ? httpWarnings(file.value, port) : []),
        ...(hostSandbox ? sandboxWarnings(planned.conflicts) : []),
        ...secret.warnings,
      ],
    };
  },
  async uninstallSettings(root, manifest) {
    const file = readSettings(root, SETTINGS_PATH);
    const moreWrites = [
      ...(await hookSecretUninstall(root, manifest)),
      ...(await mcpUninstall(root, manifest)),
    ];
    if (!file.exists || !manifest.settings)
      return moreWrites.length > 0 ? { write: null, moreWrites, record: {}, warnings: [] } : null;
    const planned = await planSettingsUninstall(file, manifest.settings);
    return {
      write: settingsRemoval(SETTINGS_PATH, file, planned.after),
      moreWrites,
      record: {},
      summary: {
        path: SETTINGS_PATH,
        hooksAdded: [],
        hooksRemoved: planned.removed,
        permissionsAdded: [],
        permissionsRemoved: planned.permissionsRemoved,
      },
      warnings: [],
    };
  },
};

/** A sandbox setting the user chose otherwise, or a machine Claude Code's sandbox cannot run on. */
function sandboxWarnings(conflicts: string[]): string[] {
  const missing = missingSandboxTools();
  return [
    ...conflicts.map(
      (c) =>
        `${SETTINGS_PATH}: kept your ${c}; Baton's guarantees in a session assume Claude Code's sandbox as baton init sets it`,
    ),
    ...(missing.length > 0
      ? [
          `Claude Code's sandbox needs ${missing.join(" and ")}, missing here: sessions will refuse to start until you install them (Debian: apt install bubblewrap socat), or run baton init --host-sandbox off`,
        ]
      : []),
  ];
}

/** `allowedHttpHookUrls` in the user's settings can silently disable the HTTP hooks; say so. */
function httpWarnings(settings: Record<string, unknown>, port: number = DEFAULT_HOOK_PORT): string[] {
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
