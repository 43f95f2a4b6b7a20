import { join } from "node:path";
import type { BatonConfig } from "../../config/index.js";
// side door: status and doctor read opencode's layout at start-up; the hosts face would load every installer.
import { opencodeLayout } from "../../hosts/opencode/opencode-layout.js";
import { readManifest } from "../../init/index.js";
import { present } from "../../shared/present.js";
import {
  learnTaskType,
  loadState,
  loadTodo,
  peekStoreSummary,
  readStoreSummary,
  type StoreContext,
  sessionActive,
} from "../../state/index.js";
import type { LearnedConventions } from "../conventions-format.js";

export { formatConventions, type LearnedConventions } from "../conventions-format.js";

export async function learnedConventions(
  config: BatonConfig,
  ctx: StoreContext,
): Promise<LearnedConventions> {
  const configured = { key: config.taskTypeKey, field: config.taskTypeField };
  // Read only: doctor reports an interrupted write, it never rolls it forward to learn a convention.
  let taskType = peekStoreSummary(ctx)?.taskType;
  // With no write in flight and no session, reading the store keeps its summary for the next status.
  if (!taskType && !present(ctx.paths.journal) && !sessionActive(ctx.paths)) {
    taskType = (await readStoreSummary(ctx).catch(() => null))?.taskType;
  }
  if (!taskType) {
    try {
      taskType = learnTaskType(loadState(ctx.paths).tasks, loadTodo(ctx.paths), configured);
    } catch {
      // An unreadable file is doctor's finding; the conventions then come from the config and defaults.
      taskType = learnTaskType([], null, configured);
    }
  }
  const hasOpencode = present(join(config.root, ".opencode"));
  const layout = hasOpencode ? opencodeLayout(config.root, readManifest(config.root)?.manifest) : null;
  return {
    taskType,
    naming: { value: config.artifactNaming, from: config.artifactNamingFrom },
    opencode: layout ? { commandsDir: layout.commandsDir, agentsDir: layout.agentsDir } : null,
  };
}
