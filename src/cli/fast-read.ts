// side doors: the fast read path (task list, show, status) loads only the modules it reads with; a barrel would bring the store's writers and zod.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { findRepoRoot } from "../config/repo-root.js";
import { batonPaths, CONFIG_FILE_NAMES, storeInternalPaths } from "../shared/baton-paths.js";
import { present } from "../shared/present.js";
import { specsPaths } from "../state/paths.js";
import { readSummary, readSummaryHead, storeKey, unpack } from "../state/summary-file.js";
import { readTaskDetail } from "../state/task-detail.js";
import { taskView } from "../state/views.js";
import type { LearnedConventions } from "./conventions-format.js";
import { STATUS_TOP_TASKS } from "./status-format.js";
import { formatTask, formatTaskList } from "./task-format.js";

/**
 * `baton task list`, `baton task show N` and `baton status` on an unchanged store, answered from the store summary before
 * the CLI parser and the store's code load (they are most of a read's time at 10,000 tasks). Anything else
 * — an option, a config file, a session or an interrupted write, a summary that no longer matches the
 * files — returns false, and the full CLI answers (and keeps the summary for next time). The output is
 * the full CLI's, byte for byte (test/e2e/fast-read.test.ts).
 */
export async function fastRead(args: readonly string[], cwd: string): Promise<string | null> {
  const [group, command, number, ...rest] = args;
  const list = group === "task" && command === "list" && number === undefined;
  const show = group === "task" && command === "show" && /^\d+$/.test(number ?? "") && rest.length === 0;
  const status = group === "status" && command === undefined;
  if (!list && !show && !status) return null;
  const root = findRepoRoot(cwd);
  if (CONFIG_FILE_NAMES.some((name) => present(join(root, name)))) return null;
  const paths = specsPaths(join(root, "specs"));
  if (status) return fastStatus(root, paths);
  if (process.env["CLAUDE_CODE_SESSION_ID"] || present(paths.journal) || checkpointsOpen(paths.internalDir)) {
    return null;
  }
  const ctx = { config: {}, paths };
  if (show) {
    const detail = readTaskDetail(ctx, Number(number));
    return detail ? formatTask({ ...taskView(detail.task, detail.entry, true), raw: detail.task }) : null;
  }
  const summary = readSummary(storeInternalPaths(paths.internalDir).summaryCache);
  return summary && summary.key === storeKey(ctx) ? formatTaskList(summary.rows.map(unpack)) : null;
}

/**
 * `baton status`: what runs and what it cost come from the event index and the checkpoints, as always; the
 * conventions line from the summary. Without a store, a summary, or with a manifest this path cannot read
 * as the full one does, the full CLI answers.
 */
async function fastStatus(root: string, paths: ReturnType<typeof specsPaths>): Promise<string | null> {
  if (!present(paths.state) && !present(paths.todo)) return null;
  const summary = readSummaryHead(storeInternalPaths(paths.internalDir).summaryCache);
  if (!summary || summary.key !== storeKey({ config: {}, paths })) return null;
  const bin = manifestBin(root);
  if (bin === null) return null;
  // Loaded here, not above: `task list` and `task show` never need the status code (it brings zod).
  const [
    { readStatus },
    { formatStatus },
    { formatConventions },
    { learnArtifactNaming },
    { opencodeLayout },
  ] = await Promise.all([
    import("../status/read-status.js"),
    import("./status-format.js"),
    import("./conventions-format.js"),
    import("../config/naming-convention.js"),
    import("../hosts/opencode/opencode-layout.js"),
  ]);
  const view = readStatus(root, paths.dir, { bin: bin ?? "baton", recent: 10, topTasks: STATUS_TOP_TASKS });
  const naming = learnArtifactNaming(paths.dir);
  const layout = present(join(root, ".opencode")) ? opencodeLayout(root, undefined) : null;
  const conventions: LearnedConventions = {
    taskType: summary.taskType,
    naming: naming ? { value: naming, from: "repository" } : { value: "v1", from: "default" },
    opencode: layout ? { commandsDir: layout.commandsDir, agentsDir: layout.agentsDir } : null,
  };
  return [formatStatus(view), ...formatConventions(conventions)].join("\n");
}

/** The bin `baton init` recorded; undefined without a manifest, null for one this path will not judge. */
function manifestBin(root: string): string | undefined | null {
  const path = batonPaths(root).initManifest;
  if (!present(path)) return undefined;
  try {
    const manifest = JSON.parse(readFileSync(path, "utf8")) as {
      version?: unknown;
      bin?: unknown;
      files?: unknown;
    };
    return manifest.version === 1 && typeof manifest.bin === "string" && Array.isArray(manifest.files)
      ? manifest.bin
      : null;
  } catch {
    return null;
  }
}

/** Any open checkpoint (a run or a session at work) sends the read through the full path. */
function checkpointsOpen(internalDir: string): boolean {
  try {
    return readdirSync(storeInternalPaths(internalDir).checkpoints).length > 0;
  } catch {
    return false;
  }
}
