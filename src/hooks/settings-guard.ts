import { readFileSync } from "node:fs";
import { join } from "node:path";
import { batonPaths } from "../shared/baton-paths.js";
import { readJsonObject } from "../shared/json-file.js";
import type { Project } from "./project.js";

type Json = Record<string, unknown>;

interface Installed {
  hostSandbox?: string;
  settings?: { hooks?: { event: string; group: Json }[] };
}

/**
 * How Claude Code's settings, as they are now, are weaker than `baton init` left them: the sandbox turned off
 * (in the shared or the local file; Claude Code re-reads both mid-session), all hooks disabled, or one of
 * Baton's hook groups gone. A person's own additions (an "always allow" rule) weaken nothing and are not
 * named. Empty when Baton was never installed here.
 */
export function weakenedSettings(project: Project): string[] {
  let installed: Installed;
  try {
    installed = JSON.parse(readFileSync(batonPaths(project.root).initManifest, "utf8")) as Installed;
  } catch {
    return [];
  }
  const shared = readJsonObject(join(project.root, ".claude", "settings.json")) ?? {};
  const local = readJsonObject(join(project.root, ".claude", "settings.local.json")) ?? {};
  const weakened: string[] = [];
  for (const [name, settings] of [
    ["settings.json", shared],
    ["settings.local.json", local],
  ] as const) {
    const sandbox = settings["sandbox"] as Json | undefined;
    if (installed.hostSandbox !== "off" && sandbox?.["enabled"] === false)
      weakened.push(`.claude/${name} turns Claude Code's sandbox off`);
    if (sandbox?.["allowUnsandboxedCommands"] === true)
      weakened.push(`.claude/${name} lets commands leave the sandbox`);
    if (settings["disableAllHooks"] === true) weakened.push(`.claude/${name} disables every hook`);
  }
  const hooks = (shared["hooks"] ?? {}) as Record<string, unknown>;
  for (const entry of installed.settings?.hooks ?? []) {
    const groups = hooks[entry.event];
    const wanted = JSON.stringify(entry.group);
    if (!Array.isArray(groups) || !groups.some((g) => JSON.stringify(g) === wanted))
      weakened.push(`.claude/settings.json no longer has Baton's ${entry.event} hook`);
  }
  return [...new Set(weakened)];
}
