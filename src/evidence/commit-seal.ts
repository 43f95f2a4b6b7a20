import { runGit } from "../shared/git.js";
import { keyTrust } from "./key-trust.js";
import {
  canonicalJson,
  type Signature,
  type SigningKey,
  signatureValid,
  signBytes,
  signingKey,
} from "./signing.js";

/**
 * Baton's commits carry a seal: its signing key's signature over the commit's tree, its parents and its
 * message. A `Session:` trailer is text anyone can type (the original system's commit templates did, and so
 * can a model with Bash); the seal is what makes a commit Baton's, for GATE IN, GATE OUT, recovery and
 * `baton verify` alike. The key is out of every sandboxed agent's reach, so no agent can seal a commit.
 */
export const SEAL_TRAILER = "Baton-Seal";

const SEAL_LINE = /^Baton-Seal: ([0-9a-f]{32}) ([A-Za-z0-9+/=]+)\s*$/m;
const SESSION_LINE = /^Session: (sess_\d{10}_[0-9a-f]{6})\s*$/m;

export interface CommitObject {
  sha: string;
  tree: string;
  parents: string[];
  /** The raw message, as `git log --format=%B` prints it. */
  message: string;
}

/** The message without its seal line and trailing blank space: what the seal signs beside the tree and parents. */
function unsealed(message: string): string {
  return message
    .split("\n")
    .filter((line) => !line.startsWith(`${SEAL_TRAILER}:`))
    .join("\n")
    .trimEnd();
}

const sealBytes = (tree: string, parents: readonly string[], message: string) =>
  canonicalJson({ seal: 1, tree, parents: [...parents], message: unsealed(message) });

/** `message` with Baton's seal for a commit of `tree` on `parents` (in git's order). */
export function sealedMessage(
  message: string,
  tree: string,
  parents: readonly string[],
  key: SigningKey = signingKey(),
): string {
  const signature = signBytes(sealBytes(tree, parents, message), key);
  return `${unsealed(message)}\n${SEAL_TRAILER}: ${signature.key} ${signature.value}\n`;
}

/** The session a commit's trailer names (the last one), or null. */
export function sessionOf(message: string): string | null {
  const all = [...message.matchAll(new RegExp(SESSION_LINE.source, "gm"))];
  return all.at(-1)?.[1] ?? null;
}

/** Whether the commit carries a seal that one of `keys` (fingerprint → public PEM) made over it. */
export function sealedBy(commit: CommitObject, keys: ReadonlyMap<string, string>): boolean {
  const match = SEAL_LINE.exec(commit.message);
  if (!match) return false;
  const signature: Signature = { key: match[1]!, value: match[2]! };
  const pem = keys.get(signature.key);
  return (
    pem !== undefined &&
    signatureValid(sealBytes(commit.tree, commit.parents, commit.message), signature, pem)
  );
}

/** Whether the commit says it is Baton's: a Session trailer or a seal line. */
export const claimsBaton = (commit: CommitObject): boolean =>
  SESSION_LINE.test(commit.message) || commit.message.includes(`\n${SEAL_TRAILER}:`);

/** Commits as `git log <args>` lists them, with tree, parents and raw message. */
export async function readCommits(root: string, args: readonly string[]): Promise<CommitObject[] | null> {
  const log = await runGit(root, ["log", "--format=%x1e%H%x00%T%x00%P%x00%B", ...args]);
  if (!log.ok) return null;
  const commits: CommitObject[] = [];
  for (const entry of log.stdout.split("\x1e")) {
    const [sha = "", tree = "", parents = "", message = ""] = entry.split("\0");
    if (!/^[0-9a-f]{40,64}$/.test(sha)) continue;
    commits.push({ sha, tree, parents: parents.split(" ").filter((p) => p !== ""), message });
  }
  return commits;
}

/**
 * The keys whose seals make a commit Baton's while Baton runs here: this account's own key and every key the
 * repository's history trusts (another person's Baton on the same repository).
 */
export async function sealKeys(root: string): Promise<Map<string, string>> {
  const keys = new Map<string, string>();
  const trust = await keyTrust(root);
  for (const fingerprint of trust.trusted) keys.set(fingerprint, trust.keys.get(fingerprint)!);
  try {
    const own = signingKey();
    keys.set(own.fingerprint, own.publicPem);
  } catch {
    // without a key of its own, Baton recognises the repository's trusted keys only
  }
  return keys;
}
