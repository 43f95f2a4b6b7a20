import { readFileSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import type { BatonConfig } from "../config/index.js";
import { batonPaths, CONFIG_FILE_NAMES, INIT_MANIFEST, REPO_KEYS_DIR } from "../shared/baton-paths.js";
import { runGit } from "../shared/git.js";
import { storePrefix } from "../state/index.js";
import type { Completion } from "./completion.js";
import { judgeApproval, type SelfApproval } from "./judge-approval.js";
import { judgeCompletion } from "./judge-completion.js";
import { judgePhaseCommits, type PhaseCommitProblem } from "./judge-phase-commits.js";
import { type KeyTrust, keyTrust } from "./key-trust.js";
import { stateHistory } from "./state-history.js";
import { type UnsealedClaim, unsealedClaims } from "./unsealed-commits.js";

export type { Completion } from "./completion.js";

/** Statuses that say work is done; reaching one must be backed by a Baton commit with evidence. */
export const DONE_STATUSES = new Set(["researched", "planned", "implemented", "completed"]);

export interface VerifyReport {
  /** The commit from which completions must carry evidence: Baton's adoption, or --since. */
  from: string | null;
  verified: Completion[];
  phantoms: Array<Completion & { reasons: string[] }>;
  /** Completions before Baton was adopted: listed, never failures. */
  beforeAdoption: Completion[];
  /**
   * A shallow clone: the commits where its history is cut (their parents were not fetched), and the
   * completions recorded there, which cannot be judged without the parent. Null in a full history.
   */
  truncated: { boundary: string[]; completions: Completion[] } | null;
  /** Verified completions whose agent ran without Baton's sandbox (`--sandbox off`): listed apart. */
  unsandboxed: Completion[];
  /**
   * Verified completions made while the signing key was within reach of the model's processes (a live session
   * of a host without a sandbox, such as opencode): their signatures prove less, so they are listed apart.
   */
  keyReachable: Array<Completion & { reason: string }>;
  /**
   * Commits since Baton began sealing that carry its Session trailer without its seal: a made-up session
   * (a failure unless a person accepted it) or Baton's own session rebased or squashed (listed apart).
   */
  unsealed: UnsealedClaim[];
  /** Phase commits held to their phase evidence (those whose evidence lists its work), and what did not hold. */
  phaseCommits: { checked: number; problems: PhaseCommitProblem[] };
  /** Plans approved by the git identity that added them (docs/approvals.md): listed, never failures. */
  selfApproved: SelfApproval[];
  /** The evidence keys: the roots trusted (adoption's, or pinned), and keys no trusted key vouches for. */
  keys: { roots: KeyTrust["roots"]; unvouched: KeyTrust["unvouched"] };
}

async function git(root: string, args: string[]): Promise<{ ok: boolean; out: string }> {
  const result = await runGit(root, args);
  return { ok: result.ok, out: result.stdout };
}

/**
 * The first commit that brought Baton in, by what only Baton writes: `baton init`'s manifest, a Baton
 * configuration file (any name it reads), or the public key Baton publishes with its first signed evidence.
 * Never a folder name: a repository's own `specs/<task>/evidence/*.json` from before Baton is not Baton's.
 */
async function adoptionCommit(root: string): Promise<string | null> {
  const added = await git(root, [
    "log",
    "--reverse",
    "--diff-filter=A",
    "--format=%H",
    "--",
    INIT_MANIFEST,
    ...CONFIG_FILE_NAMES,
    `${REPO_KEYS_DIR}/*.pub`,
  ]);
  return added.ok ? (added.out.split("\n").find((l) => l.trim() !== "") ?? null) : null;
}

/** A shallow clone's boundary commits (git's `shallow` file): their parents are not in this repository. */
async function shallowBoundary(root: string): Promise<Set<string>> {
  const shallow = await git(root, ["rev-parse", "--is-shallow-repository", "--git-path", "shallow"]);
  const [isShallow, path] = shallow.out.split("\n");
  if (!shallow.ok || isShallow !== "true" || !path) return new Set();
  try {
    const listed = readFileSync(isAbsolute(path) ? path : join(root, path), "utf8");
    return new Set(listed.split("\n").filter((l) => /^[0-9a-f]{40,64}$/.test(l)));
  } catch {
    return new Set();
  }
}

/**
 * Commits whose completions must carry evidence: reachable from HEAD and not from before `from` — the
 * adoption commit included, a `--since` revision excluded (its history is what the person vouches for).
 */
async function afterSet(root: string, from: string, inclusive: boolean): Promise<Set<string>> {
  const parents = inclusive ? await git(root, ["rev-parse", `${from}^@`]) : { ok: true, out: from };
  const exclude = parents.out.split("\n").filter((l) => l.trim() !== "");
  const listed = await git(root, ["rev-list", "HEAD", ...(exclude.length > 0 ? ["--not", ...exclude] : [])]);
  return new Set(listed.out.split("\n").filter((l) => l !== ""));
}

/** Unsealed claims over the whole sealed history, or within `after` (`--since`), judged by the trusted keys. */
async function unsealedSince(
  root: string,
  prefix: string,
  trust: KeyTrust,
  after: ReadonlySet<string> | null,
): Promise<UnsealedClaim[]> {
  const keys = new Map([...trust.trusted].map((fingerprint) => [fingerprint, trust.keys.get(fingerprint)!]));
  const claims = await unsealedClaims(root, prefix, keys, "oldest");
  return after ? claims.filter((c) => after.has(c.commit)) : claims;
}

/** Made-up sessions nobody accepted: what fails `baton verify` beside phantom completions. */
export const forgedClaims = (report: Pick<VerifyReport, "unsealed">): UnsealedClaim[] =>
  report.unsealed.filter((c) => !c.knownSession && c.acceptedBy === null);

/**
 * `baton verify`: every task that reached a done status since Baton was adopted has the Baton commit
 * that moved it — a Session trailer naming the session, the evidence that session committed, and
 * artifacts and checks that match the tree of that commit. Anything else is a phantom completion.
 */
export async function verifyHistory(
  config: BatonConfig,
  options: {
    tasks?: number[];
    since?: string;
    trust?: string[];
    onProgress?: (done: number, total: number) => void;
  } = {},
): Promise<VerifyReport> {
  const root = config.root;
  const prefix = storePrefix(root, config.specsDir);
  const statePath = `${prefix}/state.json`;
  const from = options.since ?? (await adoptionCommit(root));
  const after = from === null ? new Set<string>() : await afterSet(root, from, options.since === undefined);
  const boundary = await shallowBoundary(root);
  const history = await stateHistory(root, statePath, {
    cacheFile: batonPaths(root).historyCache,
    uncached: boundary,
    onProgress: options.onProgress,
  });
  const trust = await keyTrust(root, options.trust);
  const report: VerifyReport = {
    from,
    verified: [],
    phantoms: [],
    beforeAdoption: [],
    unsandboxed: [],
    keyReachable: [],
    unsealed: await unsealedSince(root, prefix, trust, options.since ? after : null),
    truncated: boundary.size > 0 ? { boundary: [...boundary], completions: [] } : null,
    phaseCommits: await judgePhaseCommits(root, prefix, trust, after, options.tasks),
    selfApproved: [],
    keys: { roots: trust.roots, unvouched: trust.unvouched },
  };
  for (const { commit, subject, session, moves } of history) {
    for (const move of moves) {
      if (!DONE_STATUSES.has(move.to)) continue;
      if (options.tasks && !options.tasks.includes(move.task)) continue;
      const completion: Completion = { commit, subject, session, ...move };
      if (boundary.has(commit)) {
        report.truncated?.completions.push(completion);
        continue;
      }
      if (!after.has(commit)) {
        report.beforeAdoption.push(completion);
        continue;
      }
      await judgeInto(report, { root, prefix, trust }, completion);
    }
  }
  return report;
}

/** One completion judged (its evidence, then the approval it ran under) and filed where it belongs. */
async function judgeInto(
  report: VerifyReport,
  where: { root: string; prefix: string; trust: KeyTrust },
  completion: Completion,
): Promise<void> {
  const { root, prefix, trust } = where;
  const { reasons, evidence, path } = await judgeCompletion(root, prefix, completion, trust);
  if (evidence) {
    const approval = await judgeApproval(root, prefix, completion, evidence, trust);
    reasons.push(...approval.reasons);
    if (approval.self) report.selfApproved.push(approval.self);
  }
  const judged = path ? { ...completion, evidencePath: path } : completion;
  if (reasons.length > 0) report.phantoms.push({ ...completion, reasons });
  else if (evidence?.sandbox === "off") report.unsandboxed.push(judged);
  else if (evidence?.keyReachable) report.keyReachable.push({ ...judged, reason: evidence.keyReachable });
  else report.verified.push(judged);
}
