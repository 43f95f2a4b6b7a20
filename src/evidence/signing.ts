import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  randomBytes,
  sign,
  verify,
} from "node:crypto";
import { linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { batonKeyDir, SIGNING_KEY_FILE } from "../shared/baton-paths.js";
import { BatonError } from "../shared/errors.js";
import { present } from "../shared/present.js";

/**
 * Evidence is signed with an Ed25519 key that lives outside every repository (batonKeyDir) and is hidden
 * from every sandboxed agent; its public half is committed, so a fresh clone verifies with what the
 * repository holds. A signature proves the record was written by a process that could read the key —
 * Baton, or a person at that account — and has not changed since.
 */
export interface SigningKey {
  fingerprint: string;
  publicPem: string;
  privateKey: KeyObject;
}

/** A key's name: the first 32 hex digits of the SHA-256 of its public key (SPKI, DER). */
export function fingerprintOf(publicPem: string): string {
  const der = createPublicKey(publicPem).export({ type: "spki", format: "der" });
  return createHash("sha256").update(der).digest("hex").slice(0, 32);
}

let cached: { dir: string; key: SigningKey } | undefined;

/** This account's signing key, made (mode 0600, in a 0700 folder) the first time it is needed. */
export function signingKey(dir: string = batonKeyDir()): SigningKey {
  if (cached?.dir === dir) return cached.key;
  const path = join(dir, SIGNING_KEY_FILE);
  try {
    if (!present(path)) createKey(dir, path);
    const privateKey = createPrivateKey(readFileSync(path, "utf8"));
    const publicPem = createPublicKey(privateKey).export({ type: "spki", format: "pem" }).toString();
    const key = { fingerprint: fingerprintOf(publicPem), publicPem, privateKey };
    cached = { dir, key };
    return key;
  } catch (error) {
    throw new BatonError(
      "IO_FAILURE",
      `cannot read or create the evidence signing key ${path}: ${(error as Error).message}; make the folder writable for this user, or point BATON_KEY_DIR at one that is`,
      { retryable: false, cause: error },
    );
  }
}

/**
 * Makes the key whole under a temporary name, then links it into place: two processes making the first
 * key at once end with one key, the first one's, never two that each signed with.
 */
function createKey(dir: string, path: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const pair = generateKeyPairSync("ed25519");
  const temp = `${path}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  writeFileSync(temp, pair.privateKey.export({ type: "pkcs8", format: "pem" }).toString(), { mode: 0o600 });
  try {
    linkSync(temp, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  } finally {
    rmSync(temp, { force: true });
  }
}

/** JSON with object keys in sorted order and no spacing: the bytes a signature covers. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

export interface Signature {
  key: string;
  value: string;
}

export function signBytes(bytes: string, key: SigningKey): Signature {
  return { key: key.fingerprint, value: sign(null, Buffer.from(bytes), key.privateKey).toString("base64") };
}

/** Whether `signature` is `publicPem`'s over `bytes`; a malformed key or signature is simply not valid. */
export function signatureValid(bytes: string, signature: Signature, publicPem: string): boolean {
  try {
    if (fingerprintOf(publicPem) !== signature.key) return false;
    return verify(
      null,
      Buffer.from(bytes),
      createPublicKey(publicPem),
      Buffer.from(signature.value, "base64"),
    );
  } catch {
    return false;
  }
}
