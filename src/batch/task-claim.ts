import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
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

/** Claims `task` for this process; `{ heldBy }` when a live `baton run` holds it. */
export function claimTask(root: string, task: number): TaskClaim | { heldBy: number } {
  const path = claimPath(root, task);
  mkdirSync(join(path, ".."), { recursive: true });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, "wx");
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      return { release: () => rmSync(path, { force: true }) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const pid = holder(path);
      if (pid !== null && pid !== process.pid) return { heldBy: pid };
      // Its holder died without letting go: the claim is free.
      rmSync(path, { force: true });
    }
  }
  return { heldBy: holder(path) ?? 0 };
}
