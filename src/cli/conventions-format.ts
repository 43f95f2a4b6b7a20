import type { ArtifactNaming, ConventionSource } from "../config/index.js";
/**
 * What Baton learned from the repository (or was told in its config), as `doctor` and `status` show it.
 * Free of the store's code: the fast read path prints it too.
 */
export interface LearnedConventions {
  taskType: { key: string; field: string; from: ConventionSource };
  naming: { value: ArtifactNaming; from: ConventionSource };
  opencode: { commandsDir: string; agentsDir: string } | null;
}

const FROM = {
  config: "set in the config",
  repository: "learned from the repository",
  default: "Baton's default",
};
const NAMING = { v1: "v1 (8_slug/reports/research-001.md)", v2: "v2 (008_slug/reports/01_name.md)" };

/** The lines to show: none while everything is Baton's own default (a repository Baton started). */
export function formatConventions(learned: LearnedConventions): string[] {
  if (learned.taskType.from === "default" && learned.naming.from === "default" && !learned.opencode)
    return [];
  if (
    learned.taskType.key === "language" &&
    learned.taskType.field === "Language" &&
    learned.naming.value === "v1" &&
    learned.naming.from !== "config" &&
    !learned.opencode
  )
    return [];
  const lines = [
    "Conventions (override in baton.config.json: taskTypeKey, taskTypeField, artifactNaming):",
    `  task type: "${learned.taskType.key}" in state.json, **${learned.taskType.field}** in TODO.md (${FROM[learned.taskType.from]})`,
    `  names: ${NAMING[learned.naming.value]} (${FROM[learned.naming.from]})`,
  ];
  if (learned.opencode) {
    lines.push(
      `  opencode: commands in ${learned.opencode.commandsDir}/, agents in ${learned.opencode.agentsDir}/`,
    );
  }
  return lines;
}
