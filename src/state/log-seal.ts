import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { batonKeyDir, SIGNING_KEY_FILE } from "../shared/baton-paths.js";

/**
 * Each line of a delegation log is sealed with an HMAC whose key is derived from this account's evidence
 * key (outside the repository, hidden from Baton's sandboxes and denied to the host's): a line appended
 * by anything that cannot read the key — a model writing the log, a `baton hook` piped from inside the
 * host's sandbox — does not verify, and in-session GATE OUT refuses the delegation.
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

function mac(key: Buffer, sessionId: string, line: string): string {
  return createHmac("sha256", key).update(sessionId).update("\0").update(line).digest("base64url");
}

/** `line` with its seal, bound to the log's session so a line cannot be moved to another delegation. */
export function sealLine(key: Buffer | null, sessionId: string, line: string): string {
  return key ? `${line}${SEP}${mac(key, sessionId, line)}` : line;
}

/** The line a sealed line holds, or null when its seal is missing or not this key's. */
export function openLine(key: Buffer | null, sessionId: string, sealed: string): string | null {
  const at = sealed.lastIndexOf(SEP);
  if (key === null) return at === -1 ? sealed : sealed.slice(0, at);
  if (at === -1) return null;
  const line = sealed.slice(0, at);
  const given = Buffer.from(sealed.slice(at + SEP.length));
  const expected = Buffer.from(mac(key, sessionId, line));
  return given.length === expected.length && timingSafeEqual(given, expected) ? line : null;
}
