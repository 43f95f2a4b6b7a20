import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Files only this user can read, in one folder of its own under the temp dir made when the first is
 * written, for what an agent CLI takes by path rather than in argv or the environment: one string there over
 * 128 KiB fails the spawn with E2BIG. `remove` deletes the folder once the run ended; twice is harmless.
 */
export class PrivateFiles {
  private dir: string | null = null;

  write(name: string, content: string): string {
    this.dir ??= mkdtempSync(join(tmpdir(), "baton-agent-"));
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
