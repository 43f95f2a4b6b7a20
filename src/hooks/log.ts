import { appendFileSync, mkdirSync, renameSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BATON_GITIGNORE, batonPaths } from "../shared/baton-paths.js";
import { present } from "../shared/present.js";

/** One line of `<project>/.baton/logs/hooks.jsonl`; every hook call writes exactly one. */
export interface HookLogEntry {
  ts: string;
  event: string;
  decision: string;
  tool?: string;
  reason?: string;
  note?: string;
  /** What went wrong when a hook fell back to allowing: malformed input, an internal error. */
  problem?: string;
  claude_session?: string;
  agent_type?: string;
  agent_id?: string;
  task?: number;
  /** Time spent deciding, in milliseconds. */
  ms: number;
}

export function hookLogPath(root: string): string {
  return batonPaths(root).hookLog;
}

/**
 * The project's `.baton/` folder, created with a `.gitignore` so that logs and counters are never
 * committed; `baton init`'s manifest (`init.json`) stays visible to git, since clones uninstall with it.
 */
export function ensureBatonDir(root: string, sub: string): string {
  const base = batonPaths(root).dir;
  const dir = join(base, sub);
  mkdirSync(dir, { recursive: true });
  const ignore = join(base, ".gitignore");
  if (!present(ignore)) writeFileSync(ignore, BATON_GITIGNORE);
  return dir;
}

/** Past this size the log is rotated (`hooks.jsonl.1`, one generation kept): a log on every tool call grows fast. */
export const HOOK_LOG_MAX_BYTES = 10 * 1024 * 1024;

export function appendHookLog(root: string, entry: HookLogEntry, maxBytes = HOOK_LOG_MAX_BYTES): void {
  const line = `${JSON.stringify(entry)}\n`;
  const path = hookLogPath(root);
  const size = statSync(path, { throwIfNoEntry: false })?.size ?? 0;
  // Two hooks rotating at once is harmless: the loser's rename fails or moves a file just started.
  if (size + line.length > maxBytes) {
    try {
      renameSync(path, `${path}.1`);
    } catch {
      // already rotated by a concurrent hook
    }
  }
  try {
    appendFileSync(path, line);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    ensureBatonDir(root, "logs");
    appendFileSync(path, line);
  }
}
