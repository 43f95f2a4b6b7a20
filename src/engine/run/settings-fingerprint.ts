import { createHash } from "node:crypto";
import { lstatSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import { join } from "node:path";
import { gitBlobId } from "../../shared/git.js";
import { guardedPaths } from "../../shared/host-hook-scripts.js";

/**
 * What a guarded settings path holds, as one string: null when it is absent, git's blob id for a file,
 * the link's target for a link, and for a folder a digest of every entry's name and fingerprint.
 */
export function fingerprint(path: string): string | null {
  let stat: ReturnType<typeof lstatSync>;
  try {
    stat = lstatSync(path);
  } catch {
    return null;
  }
  try {
    if (stat.isSymbolicLink()) return `link:${readlinkSync(path)}`;
    if (stat.isFile()) return gitBlobId(readFileSync(path));
    if (!stat.isDirectory()) return "other";
    const hash = createHash("sha256");
    for (const name of readdirSync(path).sort()) hash.update(`${name}\0${fingerprint(join(path, name))}\0`);
    return `folder:${hash.digest("hex")}`;
  } catch {
    return "unreadable";
  }
}

/** Every guarded settings path of the work tree at `root` (and each script the hosts' hooks run), with its fingerprint. */
export function guardedSettings(root: string): Record<string, string | null> {
  return Object.fromEntries(guardedPaths(root).map((path) => [path, fingerprint(join(root, path))]));
}
