import { lstatSync, readlinkSync, realpathSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";

/**
 * The file a write to `absolute` really lands on, as the OS resolves it: every symbolic link on the way
 * (`specs/cl -> ../.claude`, `/proc/self/root/…`), the final one too even when its target does not exist yet
 * (a write through a dangling link creates the target), and `..` after a link taken from where the link
 * points. A decision on the path as typed is not a decision on the file written.
 */
export function resolvedPath(absolute: string, depth = 0): string {
  if (depth > 40) return absolute;
  const rest: string[] = [];
  let head = absolute;
  for (;;) {
    let stat: ReturnType<typeof lstatSync> | undefined;
    try {
      stat = lstatSync(head);
    } catch {
      stat = undefined;
    }
    if (stat?.isSymbolicLink()) {
      let target: string;
      try {
        target = readlinkSync(head);
      } catch {
        return join(head, ...rest.reverse());
      }
      return resolvedPath(join(resolve(dirname(head), target), ...rest.reverse()), depth + 1);
    }
    if (stat) {
      try {
        return join(realpathSync(head), ...rest.reverse());
      } catch {
        return join(head, ...rest.reverse());
      }
    }
    const parent = dirname(head);
    if (parent === head) return absolute;
    rest.push(basename(head));
    head = parent;
  }
}

/** A file's identity (device and inode), or null when there is none; a hard link shares it. */
export function fileIdentity(path: string): string | null {
  try {
    const stat = statSync(path);
    return stat.isFile() ? `${stat.dev}:${stat.ino}` : null;
  } catch {
    return null;
  }
}

/** Whether `path` is a second name of an existing file (a hard link): only then can it be one of the protected. */
export function hasOtherNames(path: string): boolean {
  try {
    const stat = statSync(path);
    return stat.isFile() && stat.nlink > 1;
  } catch {
    return false;
  }
}
