import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { storeInternalPaths } from "../shared/baton-paths.js";
import { isProcessAlive, processStarted } from "../shared/process-group.js";

/**
 * The host sessions running in a repository: SessionStart records each (its id, the host's process and when
 * that process started), SessionEnd removes it, and a record whose process is gone (a session that crashed or
 * was killed) counts as ended and is removed by whoever reads it next. It lives in the store's own folder,
 * which no tool call and no sandboxed command may write, so "a session is running here" is the repository's
 * word, not the caller's environment's. A resident `baton serve` started for sessions ends with the last one.
 */
export interface LiveSession {
  session: string;
  pid: number;
  started?: string;
  /** Why this session's commands can read the signing key (its host runs them without a sandbox); absent when they cannot. */
  keyReachable?: string;
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

export function registerSession(
  internalDir: string,
  session: string,
  pid: number,
  keyReachable?: string | undefined,
): void {
  const dir = storeInternalPaths(internalDir).liveSessions;
  mkdirSync(dir, { recursive: true });
  const started = processStarted(pid);
  const record: LiveSession = {
    session,
    pid,
    ...(started === null ? {} : { started }),
    ...(keyReachable ? { keyReachable } : {}),
  };
  writeFileSync(join(dir, fileName(session)), `${JSON.stringify(record)}\n`);
}

export function endSession(internalDir: string, session: string): void {
  rmSync(join(storeInternalPaths(internalDir).liveSessions, fileName(session)), { force: true });
}

/** The sessions whose host still runs; the records of the others are removed. */
export function liveSessions(internalDir: string): LiveSession[] {
  const dir = storeInternalPaths(internalDir).liveSessions;
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
      if (
        typeof record.pid === "number" &&
        typeof record.session === "string" &&
        isProcessAlive(record.pid, record.started)
      ) {
        live.push(record as LiveSession);
        continue;
      }
    } catch {
      // unreadable: not a session anyone can stand behind
    }
    rmSync(path, { force: true });
  }
  return live;
}

/**
 * Why the signing key is in reach of a live session's commands now (each such session, named), or undefined:
 * what a result's evidence says of itself when it was made meanwhile.
 */
export function keyReachableBy(internalDir: string): string | undefined {
  const reasons = liveSessions(internalDir)
    .filter((s) => s.keyReachable)
    .map((s) => `${s.keyReachable} (session ${s.session}, process ${s.pid})`);
  return reasons.length > 0 ? reasons.join("; ") : undefined;
}

/** The first host session running in this repository, if any: its record, or null. */
export function runningSession(internalDir: string): LiveSession | null {
  return liveSessions(internalDir)[0] ?? null;
}
