import { join } from "node:path";
import { readJsonObject } from "../../shared/json-file.js";

type Json = Record<string, unknown>;

/** Claude Code's shared and local settings as it reads them now (it re-reads both mid-session). */
export function claudeSettings(root: string): { name: string; settings: Json }[] {
  return ["settings.json", "settings.local.json"].map((name) => ({
    name,
    settings: readJsonObject(join(root, ".claude", name)) ?? {},
  }));
}

/**
 * How Claude Code's settings, as they are now, are weaker than `baton init` left them (its manifest's record):
 * the sandbox turned off, commands let out of it, all hooks disabled, or one of Baton's hook groups gone. A
 * person's own additions (an "always allow" rule) weaken nothing and are not named.
 */
export function weakenedClaudeSettings(root: string, manifest: Json): string[] {
  const weakened: string[] = [];
  const files = claudeSettings(root);
  for (const { name, settings } of files) {
    const sandbox = settings["sandbox"] as Json | undefined;
    if (manifest["hostSandbox"] !== "off" && sandbox?.["enabled"] === false)
      weakened.push(`.claude/${name} turns Claude Code's sandbox off`);
    if (sandbox?.["allowUnsandboxedCommands"] === true)
      weakened.push(`.claude/${name} lets commands leave the sandbox`);
    if (settings["disableAllHooks"] === true) weakened.push(`.claude/${name} disables every hook`);
  }
  const hooks = (files[0]?.settings["hooks"] ?? {}) as Json;
  const installed = (manifest["settings"] as { hooks?: { event: string; group: Json }[] } | undefined)?.hooks;
  for (const entry of installed ?? []) {
    const groups = hooks[entry.event];
    const wanted = JSON.stringify(entry.group);
    if (!Array.isArray(groups) || !groups.some((g) => JSON.stringify(g) === wanted))
      weakened.push(`.claude/settings.json no longer has Baton's ${entry.event} hook`);
  }
  return weakened;
}
