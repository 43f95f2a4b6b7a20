import { createHash } from "node:crypto";
import { realpathSync } from "node:fs";

/** Where `baton serve` listens when nothing else says: a server started by hand for no particular repository. */
export const DEFAULT_HOOK_PORT = 4891;

/**
 * Per-repository ports lie below Linux's ephemeral range (32768–60999), where the kernel picks the ports of
 * outgoing connections, and above the usual service ports.
 */
export const REPOSITORY_PORTS = { first: 20_000, count: 12_000 } as const;

/**
 * The port a repository's hook server listens on: derived from its real path, so two repositories on one
 * machine get different ports without a registry (and `baton init` moves on when one is taken anyway).
 */
export function repositoryPort(root: string, attempt = 0): number {
  let real = root;
  try {
    real = realpathSync(root);
  } catch {
    // a folder that is not there yet keeps its given name
  }
  const hash = createHash("sha256").update(real).digest().readUInt32BE(0);
  return REPOSITORY_PORTS.first + ((hash + attempt) % REPOSITORY_PORTS.count);
}

/**
 * How long the Stop hook may take to run GATE OUT itself (an implement's checks included); Baton's Stop handler
 * asks Claude Code for a little more.
 */
export const STOP_GATE_OUT_TIMEOUT_S = 590;

/**
 * The installation's hook secret: `baton init` keeps it in Claude Code's local settings (`env`, never
 * committed), Claude Code interpolates it into each HTTP hook's header, the forwarders send it from their
 * environment, and the server that a session starts inherits it. No web page and no other user can know it.
 */
export const HOOK_SECRET_ENV = "BATON_HOOK_SECRET";
export const HOOK_SECRET_HEADER = "X-Baton-Hook-Secret";
/** Where Claude Code keeps one installation's own settings (git-ignored by Claude Code and by `baton init`). */
export const LOCAL_SETTINGS_PATH = ".claude/settings.local.json";

/** A name for a secret that gives nothing of it away, for `/health` to say which one a server holds. */
export function secretId(secret: string): string {
  return secret === "" ? "" : createHash("sha256").update(`baton-hook:${secret}`).digest("hex").slice(0, 16);
}

/** What a local hook server's `/health` answered: whether it says it is Baton's, and its body. */
export interface HealthAnswer {
  ok: boolean;
  baton: boolean;
  body: Record<string, unknown>;
}

/**
 * `GET /health` on 127.0.0.1, or null when nothing answers in time. The deadline is a timer that holds the process
 * open (AbortSignal.timeout's does not): a server that ends mid-answer would otherwise leave the caller awaiting a
 * body no handle keeps alive, and Node would exit 13 with nothing said.
 */
export async function fetchHealth(port: number | string, ms = 300): Promise<HealthAnswer | null> {
  const controller = new AbortController();
  const deadline = setTimeout(() => controller.abort(), ms);
  try {
    const response = await fetch(`http://127.0.0.1:${port}/health`, { signal: controller.signal });
    const baton = response.headers.get("x-baton-hook") === "1";
    const body = baton ? ((await response.json()) as Record<string, unknown>) : {};
    return { ok: response.ok, baton, body };
  } catch {
    return null;
  } finally {
    clearTimeout(deadline);
  }
}
