import { readFileSync } from "node:fs";
import { join } from "node:path";
import { batonPaths } from "../shared/baton-paths.js";
import type { Project } from "./project.js";

type Json = Record<string, unknown>;

function readSettings(path: string): Json | null {
  try {
    // Claude Code reads its settings as JSON; what it cannot parse it does not apply.
    const value = JSON.parse(readFileSync(path, "utf8")) as unknown;
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Json) : null;
  } catch {
    return null;
  }
}

interface Installed {
  hostSandbox?: string;
  settings?: { hooks?: { event: string; group: Json }[] };
}

/**
 * Why the commands of a session starting now can read the signing key: opencode runs them without a sandbox;
 * Claude Code does when its sandbox is off here (installed with `--host-sandbox off`, or turned off since).
 * Undefined when the host's sandbox keeps the key out of their reach.
 */
export function hostKeyReach(project: Project, host: string | undefined): string | undefined {
  if (host === "opencode") return "opencode runs the model's commands without a sandbox";
  const shared = readSettings(join(project.root, ".claude", "settings.json")) ?? {};
  const local = readSettings(join(project.root, ".claude", "settings.local.json")) ?? {};
  const enabled = (settings: Json) => (settings["sandbox"] as Json | undefined)?.["enabled"];
  const on = (enabled(local) ?? enabled(shared)) === true;
  return on ? undefined : "Claude Code's sandbox is off in this repository (.claude/settings*.json)";
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
  const shared = readSettings(join(project.root, ".claude", "settings.json")) ?? {};
  const local = readSettings(join(project.root, ".claude", "settings.local.json")) ?? {};
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
