import { runGit } from "../shared/git.js";
import { type CommitObject, readCommits, SEAL_TRAILER, sealedBy, sessionOf } from "./commit-seal.js";
import { EVIDENCE_DIR } from "./evidence-record.js";

/** The trailer of Baton's commit that accepts commits made outside it (`baton accept-commit`). */
export const ACCEPTS_TRAILER = "Accepts";

/** A commit that carries Baton's `Session:` trailer without Baton's seal. */
export interface UnsealedClaim {
  commit: string;
  subject: string;
  session: string;
  /**
   * The session is one Baton ran here (its evidence is in the tree): Baton's work rebased, cherry-picked or
   * squashed, which keeps the trailer and loses the seal. Otherwise the session is made up.
   */
  knownSession: boolean;
  /** The sealed commit by which a person accepted it (`baton accept-commit`), if any. */
  acceptedBy: string | null;
}

/** Which end of the sealed history a read starts from. */
type AnchorEnd = "newest" | "oldest";

/**
 * Where the sealed history begins for `since`, and what its sealed commits accept. The newest (GATE IN) stops at
 * the first valid seal, so a long Baton history costs one signature check; the oldest (`baton verify`) checks
 * every seal and collects the acceptances.
 */
async function sealedAnchor(root: string, keys: ReadonlyMap<string, string>, since: AnchorEnd) {
  const listed =
    (await readCommits(root, ["--topo-order", "--fixed-strings", `--grep=${SEAL_TRAILER}: `, "HEAD"])) ?? [];
  const accepted = new Map<string, string>();
  if (since === "newest") return { anchor: listed.find((c) => sealedBy(c, keys)), accepted };
  const sealed = listed.filter((c) => sealedBy(c, keys));
  for (const commit of sealed)
    for (const [, sha] of commit.message.matchAll(
      new RegExp(`^${ACCEPTS_TRAILER}: ([0-9a-f]{40,64})\\s*$`, "gm"),
    ))
      accepted.set(sha!, commit.sha);
  return { anchor: sealed.at(-1), accepted };
}

/** The sessions whose evidence HEAD holds under the store (`<store>/*\/evidence/<session>-….json`). */
async function sessionsWithEvidence(root: string, storePrefix: string): Promise<Set<string>> {
  const listed = await runGit(root, ["ls-tree", "-r", "--name-only", "HEAD", "--", `${storePrefix}/`]);
  const sessions = new Set<string>();
  const pattern = new RegExp(`/${EVIDENCE_DIR}/(sess_\\d{10}_[0-9a-f]{6})-[^/]*\\.json$`);
  for (const path of listed.stdout.split("\n")) {
    const match = pattern.exec(path);
    if (match) sessions.add(match[1]!);
  }
  return sessions;
}

/**
 * The commits since Baton began sealing that carry its Session trailer without its seal. `since` picks where
 * that begins: the newest sealed commit (GATE IN: everything older was looked at by an earlier GATE IN) or
 * the oldest (`baton verify`: the whole sealed history). Before Baton's first sealed commit there is nothing
 * to hold a trailer to (the original system's commits, Baton's before it sealed): an empty list.
 */
export async function unsealedClaims(
  root: string,
  storePrefix: string,
  keys: ReadonlyMap<string, string>,
  since: AnchorEnd,
): Promise<UnsealedClaim[]> {
  const { anchor, accepted } = await sealedAnchor(root, keys, since);
  if (!anchor) return [];
  const claims = await readCommits(root, [
    "--extended-regexp",
    "--grep=^Session: sess_[0-9]{10}_[0-9a-f]{6}",
    "HEAD",
    "--not",
    anchor.sha,
  ]);
  const unsealed = (claims ?? []).filter((c) => !sealedBy(c, keys) && sessionOf(c.message) !== null);
  if (unsealed.length === 0) return [];
  const known = await sessionsWithEvidence(root, storePrefix);
  return unsealed.map((c: CommitObject) => {
    const session = sessionOf(c.message)!;
    return {
      commit: c.sha,
      subject: c.message.split("\n")[0] ?? "",
      session,
      knownSession: known.has(session),
      acceptedBy: accepted.get(c.sha) ?? null,
    };
  });
}
