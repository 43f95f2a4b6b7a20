import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { batonPaths } from "../shared/baton-paths.js";
import { processExists } from "../shared/process-group.js";

/**
 * The host sessions running in a repository: SessionStart records each (its id and the host's process),
 * SessionEnd removes it, and a record whose process is gone (a session that crashed or was killed) counts
 * as ended and is removed by whoever reads it next. A resident `baton serve` started for sessions ends
 * when none is left. `.baton/` is read-only to the model's tools, so no tool call can add or drop one.
 */
export interface LiveSession {
  session: string;
  pid: number;
}

const fileName = (session: string) => `${session.replace(/[^A-Za-z0-9_-]/g, "_")}.json`;

/**
 * The host's process: Claude Code tells its hooks (`CLAUDE_PID`), Baton's opencode plugin says its own
 * (`BATON_HOST_PID`); otherwise the hook runs as the host's child.
 */
export function hostPid(env: NodeJS.ProcessEnv = process.env): number {
  for (const name of ["BATON_HOST_PID", "CLAUDE_PID"]) {
    const told = Number(env[name]);
    if (Number.isInteger(told) && told > 1) return told;
  }
  return process.ppid;
}

export function registerSession(root: string, session: string, pid: number): void {
  const dir = batonPaths(root).sessions;
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, fileName(session)), `${JSON.stringify({ session, pid })}\n`);
}

export function endSession(root: string, session: string): void {
  rmSync(join(batonPaths(root).sessions, fileName(session)), { force: true });
}

/** The sessions whose host still runs; the records of the others are removed. */
export function liveSessions(root: string): LiveSession[] {
  const dir = batonPaths(root).sessions;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const live: LiveSession[] = [];
  for (const name of names) {
    const path = join(dir, name);
    try {
      const record = JSON.parse(readFileSync(path, "utf8")) as Partial<LiveSession>;
      if (typeof record.pid === "number" && typeof record.session === "string" && processExists(record.pid)) {
        live.push({ session: record.session, pid: record.pid });
        continue;
      }
    } catch {
      // unreadable: not a session anyone can stand behind
    }
    rmSync(path, { force: true });
  }
  return live;
}
