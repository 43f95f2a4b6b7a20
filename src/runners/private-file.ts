import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { processExists } from "../shared/process-group.js";

const PREFIX = "baton-agent-";

/**
 * Files only this user can read, in one folder of its own under the temp dir made when the first is
 * written, for what an agent CLI takes by path rather than in argv or the environment: one string there over
 * 128 KiB fails the spawn with E2BIG. `remove` deletes the folder once the run ended; twice is harmless.
 * The folder is named after this process, so that the next run removes what a killed one left.
 */
export class PrivateFiles {
  private dir: string | null = null;

  write(name: string, content: string): string {
    if (this.dir === null) {
      removeDeadRunsFiles();
      this.dir = mkdtempSync(join(tmpdir(), `${PREFIX}${process.pid}-`));
    }
    const path = join(this.dir, name);
    writeFileSync(path, content, { mode: 0o600 });
    return path;
  }

  remove(): void {
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
    this.dir = null;
  }
}

/** Runs `use` with a fresh set of private files, removed when it settles. */
export async function withPrivateFiles<T>(use: (files: PrivateFiles) => Promise<T>): Promise<T> {
  const files = new PrivateFiles();
  try {
    return await use(files);
  } finally {
    files.remove();
  }
}

/**
 * The folders (`<prefix><pid>-…` in the temp dir) of Baton processes that died before removing theirs
 * (kill -9, a crash, a power cut).
 */
export function removeDeadRunsFiles(dir = tmpdir(), prefix = PREFIX): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const owner = new RegExp(`^${prefix}(\\d+)-`);
  const removed: string[] = [];
  for (const name of names) {
    const pid = Number(owner.exec(name)?.[1]);
    if (!Number.isInteger(pid) || pid <= 0 || processExists(pid)) continue;
    rmSync(join(dir, name), { recursive: true, force: true });
    removed.push(name);
  }
  return removed;
}
