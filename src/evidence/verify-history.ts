import type { BatonConfig } from "../config/index.js";
import { INIT_MANIFEST } from "../shared/baton-paths.js";
import { runGit } from "../shared/git.js";
import { storePrefix } from "../state/index.js";
import { EVIDENCE_DIR, Evidence } from "./evidence-record.js";

/** Statuses that say work is done; reaching one must be backed by a Baton commit with evidence. */
export const DONE_STATUSES = new Set(["researched", "planned", "implemented", "completed"]);
const SESSION_ID = /^sess_\d{10}_[0-9a-f]{6}$/;

export interface Completion {
  commit: string;
  subject: string;
  task: number;
  from: string | null;
  to: string;
  session: string | null;
}

export interface VerifyReport {
  /** The commit from which completions must carry evidence: Baton's adoption, or --since. */
  from: string | null;
  verified: Completion[];
  phantoms: Array<Completion & { reasons: string[] }>;
  /** Completions before Baton was adopted: listed, never failures. */
  beforeAdoption: Completion[];
}

async function git(root: string, args: string[]): Promise<{ ok: boolean; out: string }> {
  const result = await runGit(root, args);
  return { ok: result.ok, out: result.stdout };
}

/** Statuses of active tasks in state.json at a commit; an empty map when the file is not there or unreadable. */
async function statusesAt(root: string, rev: string, statePath: string): Promise<Map<number, string>> {
  const shown = await git(root, ["show", `${rev}:${statePath}`]);
  const map = new Map<number, string>();
  if (!shown.ok) return map;
  try {
    const state = JSON.parse(shown.out) as {
      active_projects?: Array<{ project_number?: unknown; status?: unknown }>;
    };
    for (const task of state.active_projects ?? []) {
      if (typeof task.project_number === "number" && typeof task.status === "string") {
        map.set(task.project_number, task.status);
      }
    }
  } catch {
    // a state.json that does not parse at this commit has no completions to check
  }
  return map;
}

/** The first commit that brought Baton in: its manifest, its config, or its first evidence file. */
async function adoptionCommit(root: string, prefix: string): Promise<string | null> {
  const added = await git(root, [
    "log",
    "--reverse",
    "--diff-filter=A",
    "--format=%H",
    "--",
    INIT_MANIFEST,
    "baton.config.json",
    "baton.config.jsonc",
    `${prefix}/*/${EVIDENCE_DIR}/*.json`,
  ]);
  return added.ok ? (added.out.split("\n").find((l) => l.trim() !== "") ?? null) : null;
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

function sessionOf(message: string): string | null {
  const match = /^Session: (\S+)\s*$/m.exec(message);
  return match ? match[1]! : null;
}

/** The evidence file the completion's commit adds for its session and task (not a phase's), if any. */
async function addedEvidence(
  root: string,
  prefix: string,
  completion: Completion,
  session: string,
): Promise<Evidence | null> {
  const added = await git(root, [
    "diff-tree",
    "--no-commit-id",
    "--name-only",
    "-r",
    "--diff-filter=A",
    "--root",
    completion.commit,
  ]);
  const candidates = added.out
    .split("\n")
    .filter(
      (p) => p.startsWith(`${prefix}/`) && p.includes(`/${EVIDENCE_DIR}/${session}-`) && p.endsWith(".json"),
    );
  for (const path of candidates) {
    const shown = await git(root, ["show", `${completion.commit}:${path}`]);
    try {
      const parsed = Evidence.safeParse(JSON.parse(shown.out));
      if (parsed.success && parsed.data.task === completion.task && parsed.data.phase === undefined)
        return parsed.data;
    } catch {
      // unreadable evidence is no evidence
    }
  }
  return null;
}

/** Each artifact the evidence names, against the blob the commit's tree holds at its path. */
async function artifactProblems(root: string, commit: string, evidence: Evidence): Promise<string[]> {
  if (evidence.artifacts.length === 0) return [];
  const tree = await git(root, ["ls-tree", "-r", commit, "--", ...evidence.artifacts.map((a) => a.path)]);
  const blobs = new Map(
    tree.out
      .split("\n")
      .map((line) => /^\d+ blob ([0-9a-f]+)\t(.*)$/.exec(line))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => [m[2]!, m[1]!]),
  );
  const problems: string[] = [];
  for (const artifact of evidence.artifacts) {
    const blob = blobs.get(artifact.path);
    if (blob === undefined) problems.push(`artifact ${artifact.path} is not in the commit`);
    else if (blob !== artifact.blob) problems.push(`artifact ${artifact.path} differs from its evidence`);
  }
  return problems;
}

/** Why a completion is not backed by Baton: no trailer, no evidence added by the commit, or evidence that does not match its tree. */
async function judge(root: string, prefix: string, completion: Completion): Promise<string[]> {
  const reasons: string[] = [];
  const session = completion.session;
  if (session === null) return ["the commit has no Session: trailer"];
  if (!SESSION_ID.test(session)) reasons.push(`"${session}" is not a Baton session id`);
  const evidence = await addedEvidence(root, prefix, completion, session);
  if (!evidence)
    return [...reasons, `the commit adds no evidence of session ${session} for task ${completion.task}`];
  if (evidence.session !== session) reasons.push(`its evidence names session ${evidence.session}`);
  if (evidence.status.to !== completion.to) {
    reasons.push(
      `its evidence records ${evidence.status.from} → ${evidence.status.to}, but state.json says ${completion.to}`,
    );
  }
  reasons.push(...(await artifactProblems(root, completion.commit, evidence)));
  for (const check of evidence.checks) {
    if (!check.ok) reasons.push(`check "${check.name}" did not pass (exit ${check.exitCode})`);
  }
  return reasons;
}

/**
 * `baton verify`: every task that reached a done status since Baton was adopted has the Baton commit
 * that moved it — a Session trailer naming the session, the evidence that session committed, and
 * artifacts and checks that match the tree of that commit. Anything else is a phantom completion.
 */
export async function verifyHistory(
  config: BatonConfig,
  options: { tasks?: number[]; since?: string } = {},
): Promise<VerifyReport> {
  const root = config.root;
  const prefix = storePrefix(root, config.specsDir);
  const statePath = `${prefix}/state.json`;
  const from = options.since ?? (await adoptionCommit(root, prefix));
  const after = from === null ? new Set<string>() : await afterSet(root, from, options.since === undefined);
  const log = await git(root, ["log", "--reverse", "--format=%H%x00%P%x00%B%x01", "--", statePath]);
  const report: VerifyReport = { from, verified: [], phantoms: [], beforeAdoption: [] };
  // A commit's state.json is read once, whether as a commit or as the next one's parent.
  const seen = new Map<string, Promise<Map<number, string>>>();
  const statuses = (rev: string) => {
    const known = seen.get(rev);
    if (known) return known;
    const read = statusesAt(root, rev, statePath);
    seen.set(rev, read);
    return read;
  };
  for (const record of log.out.split("\x01")) {
    const [commit, parents, message] = record.replace(/^\n/, "").split("\0");
    if (!commit || message === undefined) continue;
    const parent = parents?.split(" ")[0] || null;
    const now = await statuses(commit);
    const before = parent ? await statuses(parent) : new Map<number, string>();
    for (const [task, status] of now) {
      if (!DONE_STATUSES.has(status) || before.get(task) === status) continue;
      if (options.tasks && !options.tasks.includes(task)) continue;
      const completion: Completion = {
        commit,
        subject: message.split("\n")[0] ?? "",
        task,
        from: before.get(task) ?? null,
        to: status,
        session: sessionOf(message),
      };
      if (!after.has(commit)) {
        report.beforeAdoption.push(completion);
        continue;
      }
      const reasons = await judge(root, prefix, completion);
      if (reasons.length === 0) report.verified.push(completion);
      else report.phantoms.push({ ...completion, reasons });
    }
  }
  return report;
}
