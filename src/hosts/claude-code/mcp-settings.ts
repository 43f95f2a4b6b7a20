import {
  type FileChange,
  type InitManifest,
  planSettingsInstall,
  planSettingsUninstall,
  readSettings,
  settingsRemoval,
  settingsWrite,
} from "../../init/index.js";
import { mcpCommand } from "../mcp-command.js";

/** Claude Code's project MCP servers: the repository's own stay beside Baton's. */
export const MCP_SETTINGS_PATH = ".mcp.json";

/** `baton init --mcp`: `mcpServers.baton` in `.mcp.json`, recorded so a re-run updates it and uninstall takes it out. */
export async function mcpInstall(
  root: string,
  bin: string,
  previous: InitManifest | undefined,
): Promise<{ writes: FileChange[]; record: Partial<InitManifest> }> {
  const file = readSettings(root, MCP_SETTINGS_PATH);
  const value = { path: ["mcpServers", "baton"], value: mcpCommand(bin), kind: "set" as const };
  const planned = await planSettingsInstall(file, [], [], previous?.mcp, MCP_SETTINGS_PATH, [value]);
  const write = settingsWrite(MCP_SETTINGS_PATH, file, planned.after, planned.changed);
  return { writes: write ? [write] : [], record: { mcp: planned.record } };
}

/** Takes Baton's server out of `.mcp.json` again (a re-run without it, or `--uninstall`). */
export async function mcpUninstall(root: string, manifest: InitManifest | undefined): Promise<FileChange[]> {
  if (!manifest?.mcp) return [];
  const file = readSettings(root, MCP_SETTINGS_PATH);
  if (!file.exists) return [];
  const planned = await planSettingsUninstall(file, manifest.mcp);
  const write = settingsRemoval(MCP_SETTINGS_PATH, file, planned.after);
  return write ? [write] : [];
}
