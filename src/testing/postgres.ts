import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { present } from "../shared/present.js";
import { freePort } from "./free-port.js";

/**
 * A throwaway PostgreSQL cluster for the queue's tests and benchmarks: Debian's `postgresql` binaries,
 * `initdb` in a temp folder, the server on a free 127.0.0.1 port, trust authentication, no socket in a
 * system folder. PostgreSQL refuses to run as root, so under root it runs as the `postgres` user the
 * Debian package creates (through `runuser`).
 */
export interface Postgres {
  url: string;
  port: number;
  stop(): void;
  start(): void;
  destroy(): void;
  /** The server's log so far (errors a client retried past still show there). */
  log(): string;
}

export function postgresBinDir(): string | null {
  const base = "/usr/lib/postgresql";
  if (!present(base)) return null;
  const versions = readdirSync(base)
    .filter((v) => present(join(base, v, "bin", "initdb")))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(base, versions[0], "bin") : null;
}

/** Why there is no PostgreSQL to test with, or null when there is. */
export function postgresMissing(): string | null {
  if (!postgresBinDir())
    return "no PostgreSQL server binaries under /usr/lib/postgresql (Debian package postgresql)";
  if (process.getuid?.() === 0 && spawnSync("id", ["postgres"]).status !== 0)
    return "running as root with no postgres user";
  return null;
}

export async function startPostgres(): Promise<Postgres> {
  const bin = postgresBinDir();
  if (!bin) throw new Error(postgresMissing() ?? "no PostgreSQL");
  const root = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), "baton-pg-"));
  const data = join(dir, "data");
  if (root) {
    execFileSync("chown", ["postgres:postgres", dir]);
    chmodSync(dir, 0o700);
  }
  const as = (command: string, args: string[]) =>
    root
      ? execFileSync("runuser", ["-u", "postgres", "--", command, ...args], { stdio: "pipe" })
      : execFileSync(command, args, { stdio: "pipe" });
  as(join(bin, "initdb"), ["-D", data, "-U", "baton", "--auth=trust", "-E", "UTF8", "--no-sync"]);
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=100`;
  const start = () =>
    as(join(bin, "pg_ctl"), ["-D", data, "-o", options, "-l", join(dir, "log"), "-w", "-t", "60", "start"]);
  const stop = () => {
    try {
      as(join(bin, "pg_ctl"), ["-D", data, "-m", "immediate", "-w", "stop"]);
    } catch {
      // already stopped
    }
  };
  start();
  return {
    url: `postgres://baton@127.0.0.1:${port}/postgres`,
    port,
    start,
    stop,
    log: () => {
      try {
        return readFileSync(join(dir, "log"), "utf8");
      } catch {
        return "";
      }
    },
    destroy: () => {
      stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
