import { linkSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { batonPaths } from "../shared/baton-paths.js";
import { processExists } from "../shared/process-group.js";

/**
 * One task is run by one `baton run` at a time, across processes: a run claims the task (a file made with
 * O_EXCL naming its pid) before it starts an operation on it and lets go when the operation has ended. A
 * claim whose process is gone (killed) is taken over. Another `baton run` on the same repository leaves a
 * claimed task alone, so two never research the same task, nor race each other's GATE IN.
 */
export interface TaskClaim {
  release(): void;
}

const claimPath = (root: string, task: number) => join(batonPaths(root).dir, "run-claims", `${task}.claim`);

/** The pid holding a claim, or null when the claim is free or its holder is gone. */
function holder(path: string): number | null {
  try {
    const pid = Number(readFileSync(path, "utf8").trim());
    return Number.isInteger(pid) && pid > 0 && processExists(pid) ? pid : null;
  } catch {
    return null;
  }
}

/** Removes a dead holder's claim under a short lock of its own; false when another run is taking it over. */
function takeOver(path: string): boolean {
  const lock = `${path}.takeover`;
  try {
    mkdirSync(lock);
  } catch {
    // A taker killed mid-takeover leaves its lock: after a few seconds it is nobody's.
    try {
      if (Date.now() - statSync(lock).mtimeMs < 5000) return false;
      rmSync(lock, { recursive: true, force: true });
      mkdirSync(lock);
    } catch {
      return false;
    }
  }
  try {
    if (holder(path) === null) rmSync(path, { force: true });
    return true;
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** Claims `task` for this process; `{ heldBy }` when a live `baton run` holds it. */
export function claimTask(root: string, task: number): TaskClaim | { heldBy: number } {
  const path = claimPath(root, task);
  mkdirSync(join(path, ".."), { recursive: true });
  for (let attempt = 0; attempt < 2; attempt++) {
    // Made whole, then linked into place (link refuses an existing name): a claim is never seen empty. Made
    // with O_EXCL and then written, another run could read it in between, take it for a dead holder's, and
    // remove it: both ran the task.
    const whole = `${path}.${process.pid}.tmp`;
    writeFileSync(whole, `${process.pid}\n`);
    try {
      linkSync(whole, path);
      return { release: () => rmSync(path, { force: true }) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const pid = holder(path);
      if (pid !== null && pid !== process.pid) return { heldBy: pid };
      // Its holder died without letting go: the claim is free, for one taker (two removing it at once could
      // each remove the other's new claim).
      if (!takeOver(path)) return { heldBy: 0 };
    } finally {
      rmSync(whole, { force: true });
    }
  }
  return { heldBy: holder(path) ?? 0 };
}
