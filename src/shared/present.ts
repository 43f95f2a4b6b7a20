import { statSync } from "node:fs";
import { dirname } from "node:path";

/**
 * Whether a file or folder is there. A device node is not: Claude Code's sandbox binds `/dev/null` over every
 * protected path that does not exist (so a command cannot create it), and a Baton command run inside that
 * sandbox would otherwise take each as a file — three config files at once, an errors log, an archive.
 * Every existence check in Baton goes through here (`npm run lint` holds the line).
 */
export function present(path: string): boolean {
  try {
    const stat = statSync(path, { throwIfNoEntry: false });
    return stat !== undefined && !stat.isCharacterDevice() && !stat.isBlockDevice();
  } catch {
    return false;
  }
}

/**
 * Whether a read's failure (or a device read in place of a file) means "absent": the path, or a folder on
 * its way, is the device node a host sandbox binds over a protected path that does not exist.
 */
export function boundAbsent(path: string, code?: string): boolean {
  if (code !== undefined && code !== "ENOTDIR" && code !== "ENOENT") return false;
  for (let at = path; ; at = dirname(at)) {
    try {
      const stat = statSync(at, { throwIfNoEntry: false });
      if (stat?.isCharacterDevice() || stat?.isBlockDevice()) return true;
    } catch {
      // a folder on the way is unreadable: not the sandbox's stand-in
    }
    if (dirname(at) === at) return false;
  }
}
