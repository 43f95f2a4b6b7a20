import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * A file only this user can read, in a folder of its own under the temp dir, for what an agent CLI takes
 * by path rather than in argv or the environment (a string there over 128 KiB fails the spawn with E2BIG).
 * `remove` deletes the folder; calling it twice is harmless.
 */
export function privateFile(name: string, content: string): { path: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), "baton-agent-"));
  const path = join(dir, name);
  writeFileSync(path, content, { mode: 0o600 });
  return { path, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
