import { readFileSync } from "node:fs";
import { relative, sep } from "node:path";
import { Evidence, restateEvidence, type StoredFile } from "../../evidence/index.js";
import { REPO_KEYS_DIR } from "../../shared/baton-paths.js";
import { runGit } from "../../shared/git.js";
import { readObjects } from "../../shared/git-objects.js";
import { writeFileAtomic } from "../../shared/index.js";
import { sealedCommit } from "./sealed-commit.js";

const git = (root: string, args: string[], options: { env?: Record<string, string>; stdin?: string } = {}) =>
  runGit(root, args, { timeoutMs: 60_000, ...options });

/** Files of Baton's record that ride in a commit without being work: evidence of other runs, public keys. */
const isBatonRecord = (path: string) =>
  path.startsWith(`${REPO_KEYS_DIR}/`) || /\/evidence\/[^/]+\.json$/.test(path);

/** The work's files as the commit stored them (null: deleted), their blobs read by one git process. */
async function storedFiles(
  root: string,
  changes: ReadonlyMap<string, string | null>,
  skip: (path: string) => boolean,
): Promise<Map<string, StoredFile>> {
  const work = [...changes].filter(([path]) => !skip(path));
  const blobs = work.flatMap(([, blob]) => (blob === null ? [] : [blob]));
  const objects = await readObjects(root, blobs);
  const stored = new Map<string, StoredFile>();
  for (const [path, blob] of work) {
    if (blob === null) stored.set(path, null);
    else {
      const object = objects?.get(blob);
      if (object) stored.set(path, { blob, bytes: object.bytes.length, text: object.bytes.toString("utf8") });
    }
  }
  return stored;
}

/**
 * After a commit: what git stored for the work and the artifacts, held against the evidence committed with
 * it. Line-ending conversion, clean filters and the repository's own commit hooks (a formatter that rewrites
 * and re-adds files) can store other bytes than GATE OUT hashed; then the evidence is re-stated for what
 * git stored, signed again, and the commit amended with it (without running the hooks a second time), so
 * `baton verify` holds the commit to the bytes it really has. Returns the commit now at HEAD.
 */
export async function settleStoredEvidence(
  root: string,
  sha: string,
  /** What the commit changed (`commitChanges`). */
  changes: ReadonlyMap<string, string | null>,
  evidencePath: string | undefined,
  batonPaths: ReadonlySet<string>,
  env: Record<string, string>,
): Promise<{ ok: true; sha: string } | { ok: false; reason: string }> {
  if (!evidencePath) return { ok: true, sha };
  let evidence: Evidence;
  try {
    const parsed = Evidence.safeParse(JSON.parse(readFileSync(evidencePath, "utf8")));
    if (!parsed.success) return { ok: true, sha };
    evidence = parsed.data;
  } catch {
    return { ok: true, sha };
  }
  const rel = relative(root, evidencePath).split(sep).join("/");
  const stored = await storedFiles(
    root,
    changes,
    (path) => batonPaths.has(path) || path === rel || isBatonRecord(path),
  );
  const next = restateEvidence(evidence, stored);
  if (next === null) return { ok: true, sha };
  const content = `${JSON.stringify(next, null, 2)}\n`;
  writeFileAtomic(evidencePath, content);
  const blob = await git(root, ["hash-object", "-w", "--no-filters", "--stdin"], { stdin: content });
  if (!blob.ok) return { ok: false, reason: `git hash-object failed: ${blob.stderr.trim()}` };
  const read = await git(root, ["read-tree", sha], { env });
  if (!read.ok) return { ok: false, reason: `git read-tree failed: ${read.stderr.trim()}` };
  const added = await git(root, ["update-index", "-z", "--add", "--index-info"], {
    env,
    stdin: `100644 ${blob.stdout.trim()}\t${rel}\0`,
  });
  if (!added.ok) return { ok: false, reason: `git update-index failed: ${added.stderr.trim()}` };
  // The amended commit takes the first one's place (same parents, same message, sealed again over its tree).
  const parents = await git(root, ["rev-parse", `${sha}^@`]);
  const message = await git(root, ["log", "-1", "--format=%B", sha]);
  if (!parents.ok || !message.ok) return { ok: false, reason: `git could not read back the commit ${sha}` };
  const amended = await sealedCommit(
    root,
    env,
    message.stdout,
    parents.stdout.split("\n").filter((p) => p !== ""),
    sha,
  );
  return amended.ok ? { ok: true, sha: amended.sha } : { ok: false, reason: amended.reason };
}
