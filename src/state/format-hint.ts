import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { writeFileNamed } from "../shared/atomic-write.js";

/**
 * Whether state.json is in canonical `JSON.stringify` form decides how it is rewritten, and finding
 * out costs a full serialisation (~20 ms at 10,000 tasks). Baton writes it canonically, so after each
 * write it notes the file's size, mtime and inode; while those still match, the answer is known.
 * Any edit by another tool changes them and the check runs again.
 */
interface FormatHint {
  size: number;
  mtimeMs: number;
  ino: number;
}

function hintPath(internalDir: string): string {
  return join(internalDir, "state-format.json");
}

function fingerprint(path: string): FormatHint | null {
  try {
    const stat = statSync(path);
    return { size: stat.size, mtimeMs: stat.mtimeMs, ino: stat.ino };
  } catch {
    return null;
  }
}

export function isKnownCanonical(internalDir: string, statePath: string): boolean {
  try {
    const hint = JSON.parse(readFileSync(hintPath(internalDir), "utf8")) as FormatHint;
    const now = fingerprint(statePath);
    return now !== null && now.size === hint.size && now.mtimeMs === hint.mtimeMs && now.ino === hint.ino;
  } catch {
    return false;
  }
}

export function rememberCanonical(internalDir: string, statePath: string): void {
  const now = fingerprint(statePath);
  if (now) writeFileNamed(hintPath(internalDir), JSON.stringify(now));
}
