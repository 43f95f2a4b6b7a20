import { REPO_KEYS_DIR } from "../shared/baton-paths.js";
import { runGit } from "../shared/git.js";
import { readObjects } from "../shared/git-objects.js";
import { specsPaths } from "../state/index.js";
import type { Completion } from "./completion.js";
import { EVIDENCE_DIR, Evidence, sha256Of, signedBytes } from "./evidence-record.js";
import type { KeyTrust } from "./key-trust.js";
import { signatureValid } from "./signing.js";

const SESSION_ID = /^sess_\d{10}_[0-9a-f]{6}$/;
const ZERO = /^0+$/;

async function git(root: string, args: string[]): Promise<{ ok: boolean; out: string }> {
  const result = await runGit(root, args);
  return { ok: result.ok, out: result.stdout };
}

/** Every path a commit changed from its parent → the object it holds now (null: deleted). */
export async function commitChanges(root: string, commit: string): Promise<Map<string, string | null>> {
  const diff = await git(root, ["diff-tree", "-r", "-z", "--no-commit-id", "--no-renames", "--root", commit]);
  return parseChanges(diff.out.split("\0"));
}

/**
 * The commit at HEAD and what it changed, from one `git diff-tree` (which names the commit before its
 * changes); a commit that changed nothing prints nothing, and is named by `rev-parse`.
 */
export async function headCommitChanges(
  root: string,
): Promise<{ sha: string; changes: Map<string, string | null> }> {
  const diff = await git(root, ["diff-tree", "-r", "-z", "--no-renames", "--root", "HEAD"]);
  const [sha = "", ...fields] = diff.out.split("\0");
  if (diff.ok && /^[0-9a-f]{40,64}$/.test(sha)) return { sha, changes: parseChanges(fields) };
  return { sha: (await git(root, ["rev-parse", "HEAD"])).out.trim(), changes: new Map() };
}

function parseChanges(fields: string[]): Map<string, string | null> {
  const changes = new Map<string, string | null>();
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const dst = fields[i]!.split(" ")[3] ?? "";
    changes.set(fields[i + 1]!, ZERO.test(dst) ? null : dst);
  }
  return changes;
}

/**
 * The evidence file a commit adds for a session and task: the operation's (no `phase`), or one phase's. Null
 * when the commit adds none that reads as such.
 */
export async function addedEvidence(
  root: string,
  prefix: string,
  commit: string,
  want: { session: string; task: number; phase?: string | undefined },
): Promise<{ evidence: Evidence; path: string } | null> {
  const added = await git(root, [
    "diff-tree",
    "--no-commit-id",
    "--name-only",
    "-r",
    "--diff-filter=A",
    "--root",
    commit,
  ]);
  const candidates = added.out
    .split("\n")
    .filter(
      (p) =>
        p.startsWith(`${prefix}/`) && p.includes(`/${EVIDENCE_DIR}/${want.session}-`) && p.endsWith(".json"),
    );
  for (const path of candidates) {
    const shown = await git(root, ["show", `${commit}:${path}`]);
    try {
      const parsed = Evidence.safeParse(JSON.parse(shown.out));
      if (parsed.success && parsed.data.task === want.task && parsed.data.phase === want.phase)
        return { evidence: parsed.data, path };
    } catch {
      // unreadable evidence is no evidence
    }
  }
  return null;
}

/**
 * Each artifact the evidence names, against the commit's tree: git's object id (a hash of its bytes), its
 * size, and for text its SHA-256 as well.
 */
async function artifactProblems(root: string, commit: string, evidence: Evidence): Promise<string[]> {
  const problems: string[] = [];
  const spec = (path: string) => `${commit}:${path}`;
  const objects = await readObjects(
    root,
    evidence.artifacts.map((artifact) => spec(artifact.path)),
  );
  for (const artifact of evidence.artifacts) {
    const object = objects?.get(spec(artifact.path));
    if (!object) {
      problems.push(`artifact ${artifact.path} is not in the commit`);
      continue;
    }
    const bytes = object.bytes.length;
    const text = object.bytes.toString("utf8");
    // Text decodes to the same bytes; binary is held to its object id and size.
    const sha256 = Buffer.byteLength(text, "utf8") === bytes ? sha256Of(text) : artifact.sha256;
    if (object.oid !== artifact.blob || bytes !== artifact.bytes || sha256 !== artifact.sha256)
      problems.push(`artifact ${artifact.path} differs from its evidence (hash or size)`);
  }
  return problems;
}

/** Why the evidence's signature does not make it Baton's, if it does not. */
export function signatureProblem(evidence: Evidence, trust: KeyTrust): string | null {
  const signature = evidence.signature;
  if (!signature) return "its evidence is not signed";
  const pem = trust.keys.get(signature.key);
  if (!pem) return `its evidence is signed by key ${signature.key}, which the repository does not hold`;
  if (!trust.trusted.has(signature.key))
    return `its evidence is signed by key ${signature.key}, which no trusted key vouches for`;
  if (!signatureValid(signedBytes(evidence), signature, pem))
    return "its evidence does not match its signature (changed after Baton signed it)";
  return null;
}

/**
 * The commit changed exactly what the evidence lists: Baton's own files (the store, this session's evidence,
 * the evidence keys) and the work with the object ids the evidence names — nothing more, nothing else.
 */
async function scopeProblems(
  root: string,
  prefix: string,
  completion: Completion,
  found: { evidence: Evidence; path: string },
): Promise<string[]> {
  const changes = await commitChanges(root, completion.commit);
  const folder = found.path.slice(0, found.path.indexOf(`/${EVIDENCE_DIR}/`));
  const session = found.evidence.session;
  const batons = (p: string) =>
    isStoreRecord(prefix, p) ||
    (p.startsWith(`${folder}/${EVIDENCE_DIR}/${session}-`) && p.endsWith(".json"));
  const work = found.evidence.work;
  if (work !== undefined) return workListProblems(changes, work, batons, "its evidence");
  return [...changes.keys()]
    .filter((path) => !batons(path) && !path.startsWith(`${folder}/`))
    .map((path) => `the commit changes ${path}, outside its task folder`);
}

/** Baton's store files and the evidence keys: what any of Baton's commits may change beside its work. */
export function isStoreRecord(prefix: string, path: string): boolean {
  const store = specsPaths(prefix);
  return [store.state, store.todo, store.errors].includes(path) || path.startsWith(`${REPO_KEYS_DIR}/`);
}

/**
 * A commit's changes (path → blob) held to a work list: each change outside `record` is listed with that
 * blob, and each listed path outside `record` is changed. `whose` names the list in the problems.
 */
export function workListProblems(
  changes: ReadonlyMap<string, string | null>,
  work: Readonly<Record<string, string | null>>,
  record: (path: string) => boolean,
  whose: string,
): string[] {
  const problems: string[] = [];
  for (const [path, blob] of changes) {
    if (record(path)) continue;
    if (!(path in work)) problems.push(`the commit changes ${path}, which ${whose} does not list`);
    else if (work[path] !== blob) problems.push(`the commit's ${path} is not what ${whose} lists`);
  }
  for (const path of Object.keys(work))
    if (!changes.has(path) && !record(path))
      problems.push(`${whose} lists ${path}, which the commit does not change`);
  return problems;
}

/**
 * Why a completion is not backed by Baton: no trailer, no evidence added by the commit, evidence not
 * signed by a trusted key or changed since, artifacts, status or changed files that do not match it.
 */
export async function judgeCompletion(
  root: string,
  prefix: string,
  completion: Completion,
  trust: KeyTrust,
): Promise<{ reasons: string[]; evidence: Evidence | null; path?: string }> {
  const session = completion.session;
  if (session === null) return { reasons: ["the commit has no Session: trailer"], evidence: null };
  const reasons: string[] = [];
  if (!SESSION_ID.test(session)) reasons.push(`"${session}" is not a Baton session id`);
  const found = await addedEvidence(root, prefix, completion.commit, { session, task: completion.task });
  if (!found) {
    reasons.push(`the commit adds no evidence of session ${session} for task ${completion.task}`);
    return { reasons, evidence: null };
  }
  const { evidence } = found;
  const signature = signatureProblem(evidence, trust);
  if (signature) reasons.push(signature);
  if (evidence.session !== session) reasons.push(`its evidence names session ${evidence.session}`);
  if (evidence.status.to !== completion.to) {
    reasons.push(
      `its evidence records ${evidence.status.from} → ${evidence.status.to}, but state.json says ${completion.to}`,
    );
  }
  reasons.push(...(await artifactProblems(root, completion.commit, evidence)));
  if (evidence.version >= 2) reasons.push(...(await scopeProblems(root, prefix, completion, found)));
  for (const check of evidence.checks) {
    if (!check.ok) reasons.push(`check "${check.name}" did not pass (exit ${check.exitCode})`);
  }
  return { reasons, evidence, path: found.path };
}
