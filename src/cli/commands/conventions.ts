import { existsSync } from "node:fs";
import { join } from "node:path";
import type { BatonConfig } from "../../config/index.js";
import { opencodeLayout } from "../../hosts/opencode/opencode-layout.js";
import { readManifest } from "../../init/index.js";
import {
  learnTaskType,
  loadState,
  loadTodo,
  peekStoreSummary,
  type StoreContext,
} from "../../state/index.js";

/** What Baton learned from the repository (or was told in its config), as `doctor` and `status` show it. */
export interface LearnedConventions {
  taskType: { key: string; field: string; from: "config" | "repository" | "default" };
  naming: { value: "v1" | "v2"; from: "config" | "repository" | "default" };
  opencode: { commandsDir: string; agentsDir: string } | null;
}

export async function learnedConventions(
  config: BatonConfig,
  ctx: StoreContext,
): Promise<LearnedConventions> {
  const configured = { key: config.taskTypeKey, field: config.taskTypeField };
  // Read only: doctor reports an interrupted write, it never rolls it forward to learn a convention.
  let taskType = peekStoreSummary(ctx)?.taskType;
  if (!taskType) {
    try {
      taskType = learnTaskType(loadState(ctx.paths).tasks, loadTodo(ctx.paths), configured);
    } catch {
      // An unreadable file is doctor's finding; the conventions then come from the config and defaults.
      taskType = learnTaskType([], null, configured);
    }
  }
  const hasOpencode = existsSync(join(config.root, ".opencode"));
  const layout = hasOpencode ? opencodeLayout(config.root, readManifest(config.root)?.manifest) : null;
  return {
    taskType,
    naming: { value: config.artifactNaming, from: config.artifactNamingFrom },
    opencode: layout ? { commandsDir: layout.commandsDir, agentsDir: layout.agentsDir } : null,
  };
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
