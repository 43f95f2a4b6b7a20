import { loadConfig } from "../config/index.js";
import {
  type FindingCode,
  loadArchive,
  loadErrors,
  loadState,
  loadTodo,
  runDoctorChecks,
  storeContext,
} from "../state/index.js";

/** Doctor findings a hook reports: loaders already explain unreadable files, with line numbers. */
const SKIPPED: ReadonlySet<FindingCode> = new Set([
  "STATE_UNREADABLE",
  "TODO_UNREADABLE",
  "ARCHIVE_UNREADABLE",
  // a baton command writing at this moment leaves a journal for a few milliseconds
  "INTERRUPTED_COMMIT",
]);

/**
 * The store's own readers and doctor's error-level checks, run after a tool touched a store file.
 * Loaded only on that path: it pulls in the config and the whole state module.
 */
export async function storeProblems(root: string): Promise<string[]> {
  const ctx = storeContext(await loadConfig(root));
  const problems: string[] = [];
  for (const load of [loadState, loadTodo, loadArchive, loadErrors]) {
    try {
      load(ctx.paths);
    } catch (error) {
      problems.push(error instanceof Error ? error.message : String(error));
    }
  }
  for (const finding of runDoctorChecks(ctx)) {
    if (finding.severity === "error" && !SKIPPED.has(finding.code)) {
      problems.push(`${finding.message} (fix: ${finding.fix})`);
    }
  }
  const prefix = `${ctx.config.root}/`;
  return problems.map((p) => p.split(prefix).join(""));
}
