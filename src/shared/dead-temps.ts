import { type Dirent, readdirSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { processExists } from "./process-group.js";

/**
 * Temp files of atomic writes (`.<name>.baton-<pid>-<hex>.tmp`) that a killed writer left: the store's
 * recovery sweeps its folders, and `baton init` the folders it writes (an init killed mid-write left one in
 * `.claude/agents/` that no later init or `--uninstall` removed).
 */
/** Whether the process that named a temp file (`.<name>.baton-<pid>-<hex>.tmp`) still runs. */
function writerAlive(name: string): boolean {
  const pid = Number(/\.baton-(\d+)-[0-9a-f]{8}\.tmp$/.exec(name)?.[1]);
  return Number.isInteger(pid) && pid > 0 && processExists(pid);
}

/** Removes temp files of atomic writes in `dir`, and in its sub-folders `depth` levels down. */
export function removeTemps(dir: string, depth: number, deadWritersOnly: boolean): void {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries) {
    if (entry.isDirectory()) {
      if (depth > 0) removeTemps(join(dir, entry.name), depth - 1, deadWritersOnly);
    } else if (
      entry.name.startsWith(".") &&
      /\.baton-\d+-[0-9a-f]{8}\.tmp$/.test(entry.name) &&
      !(deadWritersOnly && writerAlive(entry.name))
    ) {
      try {
        unlinkSync(join(dir, entry.name));
      } catch {
        // already gone
      }
    }
  }
}
