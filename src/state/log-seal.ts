import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import {
  closeSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { batonKeyDir, SIGNING_KEY_FILE } from "../shared/baton-paths.js";
import { monotonicMs } from "../shared/time.js";

/**
 * The delegation log is a chain: each line's seal is an HMAC over the session, the seal of the line before it
 * and the line itself, keyed from this account's evidence key (outside the repository, hidden from Baton's
 * sandboxes and denied to the host's file tools). A line appended by anything that cannot read the key does
 * not verify; a line dropped or moved breaks the seal of every line after it; and the head (how many lines,
 * the last seal) is kept beside the key, where no tool reaches, so a log cut short at its end is seen too.
 */
const SEP = "\t#";

let cached: { dir: string; key: Buffer | null } | undefined;

/** The log's key, or null when this account has no evidence key yet (gate-in makes it first). */
export function logKey(dir: string = batonKeyDir()): Buffer | null {
  if (cached?.dir === dir) return cached.key;
  let key: Buffer | null = null;
  try {
    const pem = readFileSync(join(dir, SIGNING_KEY_FILE));
    key = createHash("sha256").update("baton delegation log\0").update(pem).digest();
  } catch {
    key = null;
  }
  // A missing key is not cached: gate-in may make it a moment later in this same process.
  if (key) cached = { dir, key };
  return key;
}

function mac(key: Buffer, sessionId: string, previous: string, line: string): string {
  return createHmac("sha256", key)
    .update(sessionId)
    .update("\0")
    .update(previous)
    .update("\0")
    .update(line)
    .digest("base64url");
}

/** Where a log's head is kept: beside the key, out of every tool's and sandbox's reach; one per log file. */
function headPath(log: string): string {
  const name = createHash("sha256").update(log).digest("hex").slice(0, 32);
  return join(batonKeyDir(), "log-heads", `${name}.json`);
}

export interface LogHead {
  lines: number;
  seal: string;
}

export function readHead(log: string): LogHead | null {
  try {
    const head = JSON.parse(readFileSync(headPath(log), "utf8")) as Partial<LogHead>;
    return typeof head.lines === "number" && typeof head.seal === "string"
      ? { lines: head.lines, seal: head.seal }
      : null;
  } catch {
    return null;
  }
}

export function writeHead(log: string, head: LogHead): void {
  const path = headPath(log);
  mkdirSync(join(batonKeyDir(), "log-heads"), { recursive: true, mode: 0o700 });
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, JSON.stringify(head), { mode: 0o600 });
  renameSync(temp, path);
}

/** Lines after `previous` (the seal of the line before them, "" at the start), each sealed in turn. */
export function sealLines(
  key: Buffer | null,
  sessionId: string,
  previous: string,
  lines: readonly string[],
): { sealed: string[]; last: string } {
  let last = previous;
  const sealed = lines.map((line) => {
    if (!key) return line;
    last = mac(key, sessionId, last, line);
    return `${line}${SEP}${last}`;
  });
  return { sealed, last };
}

/** The seal a sealed line carries ("" when none). */
export function sealOf(sealed: string): string {
  const at = sealed.lastIndexOf(SEP);
  return at === -1 ? "" : sealed.slice(at + SEP.length);
}

/** The line a sealed line holds, or null when its seal is missing or not this key's after `previous`. */
export function openLine(
  key: Buffer | null,
  sessionId: string,
  previous: string,
  sealed: string,
): string | null {
  const at = sealed.lastIndexOf(SEP);
  if (key === null) return at === -1 ? sealed : sealed.slice(0, at);
  if (at === -1) return null;
  const line = sealed.slice(0, at);
  const given = Buffer.from(sealed.slice(at + SEP.length));
  const expected = Buffer.from(mac(key, sessionId, previous, line));
  return given.length === expected.length && timingSafeEqual(given, expected) ? line : null;
}

const pause = new Int32Array(new SharedArrayBuffer(4));

/**
 * One appender at a time per log: hook processes (a command hook, the resident server, parallel sub-agents'
 * calls) read the head, append after it and move it on. A lock older than 10 s belongs to a process that
 * died holding it; waiting longer than 5 s appends anyway rather than lose the line (its seal then says so).
 */
export function withHeadLock<T>(log: string, fn: () => T): T {
  const lock = `${headPath(log)}.lock`;
  mkdirSync(join(batonKeyDir(), "log-heads"), { recursive: true, mode: 0o700 });
  const deadline = monotonicMs() + 5_000;
  let held = false;
  while (!held) {
    try {
      closeSync(openSync(lock, "wx", 0o600));
      held = true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      try {
        if (Date.now() - statSync(lock).mtimeMs > 10_000) rmSync(lock, { force: true });
      } catch {
        // released meanwhile
      }
      if (monotonicMs() > deadline) break;
      Atomics.wait(pause, 0, 0, 2);
    }
  }
  try {
    return fn();
  } finally {
    if (held) rmSync(lock, { force: true });
  }
}
