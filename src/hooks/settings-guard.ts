// side door: a hook runs per tool call; session-registry.ts loads no installer, lint rule or agent reader
import { weakenedHostSettings } from "../hosts/session-registry.js";
import { batonPaths } from "../shared/baton-paths.js";
import { readJsonObject } from "../shared/json-file.js";
import type { Project } from "./project.js";

/**
 * How the hosts' settings, as they are now, are weaker than `baton init` left them (each host compares its own
 * settings with its record in the init manifest). Empty when Baton was never installed here.
 */
export function weakenedSettings(project: Project): string[] {
  const manifest = readJsonObject(batonPaths(project.root).initManifest);
  return manifest ? weakenedHostSettings(project.root, manifest) : [];
}
