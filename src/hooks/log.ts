import { appendFileSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

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
  return join(root, ".baton", "logs", "hooks.jsonl");
}

/**
 * The project's `.baton/` folder, created with a `.gitignore` so that logs and counters are never
 * committed; `baton init`'s manifest (`init.json`) stays visible to git, since clones uninstall with it.
 */
export function ensureBatonDir(root: string, sub: string): string {
  const base = join(root, ".baton");
  const dir = join(base, sub);
  mkdirSync(dir, { recursive: true });
  const ignore = join(base, ".gitignore");
  if (!existsSync(ignore)) writeFileSync(ignore, "*\n!init.json\n");
  return dir;
}

export function appendHookLog(root: string, entry: HookLogEntry): void {
  const line = `${JSON.stringify(entry)}\n`;
  const path = hookLogPath(root);
  try {
    appendFileSync(path, line);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    ensureBatonDir(root, "logs");
    appendFileSync(path, line);
  }
}
