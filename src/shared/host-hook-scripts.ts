import { join } from "node:path";
import { GUARDED_SETTINGS, HOST_SETTINGS_FILES } from "./baton-paths.js";
import { hookScripts } from "./hook-scripts.js";
import { readJsonObject } from "./json-file.js";

type Json = Record<string, unknown>;

/** The `command` of every hook handler in a settings file shaped `{hooks: {Event: [{hooks: [{command}]}]}}`. */
function hookCommands(settings: Json): string[] {
  const events = settings["hooks"];
  if (typeof events !== "object" || events === null || Array.isArray(events)) return [];
  const groups = Object.values(events as Json).flatMap((list) => (Array.isArray(list) ? list : []));
  const handlers = groups.flatMap((group) => {
    const hooks = (group as Json | null)?.["hooks"];
    return Array.isArray(hooks) ? hooks : [];
  });
  return handlers.flatMap((handler) => {
    const command = (handler as Json | null)?.["command"];
    return typeof command === "string" ? [command] : [];
  });
}

/**
 * The repository's scripts a host runs outside any sandbox: those the hook commands of the hosts' settings
 * name (Claude Code's and Codex's share one shape). One kept in a hidden folder (`.claude/hooks/x.sh`) stands
 * for its folder, whose neighbours it may source. An agent that could write one would have its code run with
 * the person's rights at the next tool call, Baton's key within reach. Repository-relative, `/`-separated.
 */
export function hostHookScripts(root: string): string[] {
  const found = new Set<string>();
  for (const file of HOST_SETTINGS_FILES) {
    const settings = file.endsWith(".json") ? readJsonObject(join(root, file)) : null;
    for (const command of settings ? hookCommands(settings) : []) {
      for (const script of hookScripts(command, root).scripts) {
        const folder = script.slice(0, script.lastIndexOf("/"));
        found.add(folder.startsWith(".") && folder.includes("/") ? folder : script);
      }
    }
  }
  return [...found].sort();
}

/**
 * Everything no agent may write because it decides how the next agent runs: Baton's configuration, the hosts'
 * settings and plugin folders (GUARDED_SETTINGS), and the scripts their hooks run.
 */
export function guardedPaths(root: string): string[] {
  return [...new Set([...GUARDED_SETTINGS, ...hostHookScripts(root)])];
}
