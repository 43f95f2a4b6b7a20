import { REPO_KEYS_DIR } from "../shared/baton-paths.js";
import { runGit } from "../shared/git.js";
import {
  canonicalJson,
  fingerprintOf,
  type Signature,
  type SigningKey,
  signatureValid,
  signBytes,
} from "./signing.js";

/**
 * Which evidence keys a repository's history trusts. The keys of the first commit that added any (Baton's
 * adoption) are the roots — or the fingerprints a verifier pins with `--trust`; any later key is trusted
 * only when a vouch signed by a trusted key brings it in (`baton key vouch`). A key nobody vouched for is
 * reported with the commit that introduced it, and evidence it signed is not verified.
 */
export interface KeyTrust {
  /** Every key the history committed: fingerprint → public key (PEM). */
  keys: Map<string, string>;
  trusted: Set<string>;
  roots: Array<{ fingerprint: string; commit: string }>;
  unvouched: Array<{ fingerprint: string; commit: string }>;
}

/** What a vouch signs: the vouched key, so a vouch cannot be moved onto another one. */
const vouchBytes = (fingerprint: string, publicPem: string) =>
  canonicalJson({ vouch: fingerprint, publicKey: publicPem.trim() });

export interface Vouch {
  version: 1;
  key: string;
  signature: Signature;
}

export function makeVouch(fingerprint: string, publicPem: string, by: SigningKey): Vouch {
  return { version: 1, key: fingerprint, signature: signBytes(vouchBytes(fingerprint, publicPem), by) };
}

async function show(root: string, commit: string, path: string): Promise<string | null> {
  const shown = await runGit(root, ["show", `${commit}:${path}`]);
  return shown.ok ? shown.stdout : null;
}

/** Each key and vouch file as the commit that added it holds it, oldest first. */
async function addedKeyFiles(root: string): Promise<Array<{ commit: string; path: string; text: string }>> {
  const log = await runGit(root, [
    "log",
    "--reverse",
    "--diff-filter=A",
    "--format=%x01%H",
    "--name-only",
    "--",
    `${REPO_KEYS_DIR}/`,
  ]);
  if (!log.ok) return [];
  const added: Array<{ commit: string; path: string; text: string }> = [];
  for (const block of log.stdout.split("\x01").filter((b) => b.trim() !== "")) {
    const [commit = "", ...paths] = block.split("\n").filter((l) => l.trim() !== "");
    for (const path of paths) {
      const text = await show(root, commit, path);
      if (text !== null) added.push({ commit, path, text });
    }
  }
  return added;
}

export async function keyTrust(root: string, pinned: readonly string[] = []): Promise<KeyTrust> {
  const files = await addedKeyFiles(root);
  const trust: KeyTrust = { keys: new Map(), trusted: new Set(), roots: [], unvouched: [] };
  const introduced = new Map<string, string>();
  const vouches: Vouch[] = [];
  for (const file of files) {
    if (file.path.endsWith(".pub")) {
      try {
        const fingerprint = fingerprintOf(file.text);
        // A file whose name is not its key's fingerprint names nothing.
        if (!file.path.endsWith(`/${fingerprint}.pub`) || trust.keys.has(fingerprint)) continue;
        trust.keys.set(fingerprint, file.text);
        introduced.set(fingerprint, file.commit);
      } catch {
        // not a public key
      }
    } else if (file.path.endsWith(".vouch")) {
      try {
        vouches.push(JSON.parse(file.text) as Vouch);
      } catch {
        // not a vouch
      }
    }
  }
  const firstCommit = files.find((f) => f.path.endsWith(".pub"))?.commit;
  for (const [fingerprint, commit] of introduced) {
    const root = pinned.length > 0 ? pinned.includes(fingerprint) : commit === firstCommit;
    if (root) {
      trust.trusted.add(fingerprint);
      trust.roots.push({ fingerprint, commit });
    }
  }
  applyVouches(trust, vouches);
  for (const [fingerprint, commit] of introduced)
    if (!trust.trusted.has(fingerprint)) trust.unvouched.push({ fingerprint, commit });
  return trust;
}

/** Vouches by trusted keys bring their keys in, and those keys' vouches in turn, until nothing changes. */
function applyVouches(trust: KeyTrust, vouches: readonly Vouch[]): void {
  for (let grew = true; grew; ) {
    grew = false;
    for (const vouch of vouches) {
      const pem = trust.keys.get(vouch.key);
      const by = trust.keys.get(vouch.signature?.key);
      if (!pem || !by || trust.trusted.has(vouch.key) || !trust.trusted.has(vouch.signature.key)) continue;
      if (signatureValid(vouchBytes(vouch.key, pem), vouch.signature, by)) {
        trust.trusted.add(vouch.key);
        grew = true;
      }
    }
  }
}
