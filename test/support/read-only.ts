import { spawnSync } from "node:child_process";
import { chmodSync, cpSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { BATON_BIN, type CliResult } from "./cli.js";

/**
 * Runs the CLI against a repository whose `specs/` it may read but not write. As a normal user that is
 * a chmod; as root (CI runs as root, and root writes anywhere) the CLI runs as `nobody` through
 * setpriv, from a world-readable copy of the built package (dist/ is self-contained).
 */
export class ReadOnlyRunner {
  private install: string | null = null;

  constructor(private readonly dir: string) {}

  run(args: string[]): CliResult {
    const asRoot = process.getuid?.() === 0;
    this.protect(join(this.dir, "specs"), false);
    try {
      const env = {
        ...process.env,
        // git refuses a repository owned by another user unless told it is safe.
        GIT_CONFIG_COUNT: "1",
        GIT_CONFIG_KEY_0: "safe.directory",
        GIT_CONFIG_VALUE_0: "*",
        HOME: tmpdir(),
      };
      const command = asRoot
        ? [
            "setpriv",
            ["--reuid=65534", "--regid=65534", "--clear-groups", process.execPath, this.bin(), ...args],
          ]
        : [process.execPath, [BATON_BIN, ...args]];
      const result = spawnSync(command[0] as string, command[1] as string[], {
        cwd: this.dir,
        encoding: "utf8",
        env,
      });
      return { status: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
    } finally {
      this.protect(join(this.dir, "specs"), true);
    }
  }

  cleanup(): void {
    if (this.install) rmSync(this.install, { recursive: true, force: true });
  }

  private bin(): string {
    if (this.install === null) {
      const root = join(dirname(BATON_BIN), "..");
      this.install = mkdtempSync(join(tmpdir(), "baton-ro-install-"));
      for (const part of ["bin", "dist", "agents", "package.json"]) {
        cpSync(join(root, part), join(this.install, part), { recursive: true });
      }
      openUp(this.install);
      openUp(this.dir);
    }
    return join(this.install, "bin", "baton.js");
  }

  /** Write permission off (or back on) for everything under `path`; reading stays allowed. */
  private protect(path: string, writable: boolean): void {
    const walk = (p: string) => {
      const stat = statSync(p);
      chmodSync(p, writable ? stat.mode | 0o200 : stat.mode & ~0o222);
      if (stat.isDirectory()) for (const name of readdirSync(p)) walk(join(p, name));
    };
    if (!writable) walk(path);
    else {
      chmodSync(path, statSync(path).mode | 0o200);
      for (const name of readdirSync(path)) walk(join(path, name));
    }
  }
}

/** Readable (and traversable) by everyone, so `nobody` can read the tree. */
function openUp(path: string): void {
  const stat = statSync(path);
  chmodSync(path, stat.mode | (stat.isDirectory() ? 0o555 : 0o444));
  if (stat.isDirectory()) for (const name of readdirSync(path)) openUp(join(path, name));
}
