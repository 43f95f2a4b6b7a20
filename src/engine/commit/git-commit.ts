import { readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { readCommits, sealedBy, sealKeys, sessionOf } from "../../evidence/index.js";
import { runGit } from "../../shared/git.js";
import { present } from "../../shared/present.js";
import type { GitBaseline } from "../../state/index.js";
import {
  agentChanged,
  changedSinceSnapshot,
  snapshotWork,
  type WorkPaths,
  type WorkSnapshot,
  workPathspecs,
} from "../gate-out/index.js";
import { commitEntries } from "./commit-index.js";

export type CommitResult =
  | { ok: true; committed: true; sha: string; leftOut: string[] }
  | { ok: true; committed: false; reason: string; leftOut: string[] }
  | { ok: false; reason: string };

/** One of Baton's own files in a commit: `content` is Baton's last write of it (the store's seal); without it, read now under the lock Baton holds. */
export interface BatonFile {
  path: string;
  /** What the commit carries (absent: the file as it is under the lock). */
  content?: string | null | undefined;
  /**
   * What Baton last wrote there, when the commit carries only part of it (this task's entries): the work
   * tree is held to this, not to `content`, when Baton says what differs. Defaults to `content`.
   */
  written?: string | null | undefined;
}

export interface CommitRequest {
  root: string;
  subject: string;
  sessionId: string;
  baton: readonly BatonFile[];
  /** The evidence file among `baton`: re-stated for what git stored when filters or hooks changed the bytes. */
  evidence?: string | null | undefined;
  /**
   * The work: files and a task folder (its control and temp files excluded), committed as `seen` when given;
   * else as it is now, less what is exactly as it was at `baseline` (GATE IN).
   */
  work: WorkPaths & { seen?: WorkSnapshot | undefined; baseline?: GitBaseline | null | undefined };
}

const git = (root: string, args: string[], stdin?: string) =>
  runGit(root, args, { timeoutMs: 60_000, ...(stdin === undefined ? {} : { stdin }) });

/**
 * Subjects of the commits Baton made for this session (null without git), newest first: its trailer and a
 * valid seal — a commit that only types the trailer is not Baton's commit, and recovery must not settle on it.
 */
export async function sessionCommitSubjects(root: string, sessionId: string): Promise<string[] | null> {
  const commits = await readCommits(root, ["--fixed-strings", `--grep=Session: ${sessionId}`]);
  if (commits === null) return null;
  const keys = await sealKeys(root);
  return commits
    .filter((c) => sessionOf(c.message) === sessionId && sealedBy(c, keys))
    .map((c) => c.message.split("\n")[0]!)
    .filter((s) => s !== "");
}

/**
 * COMMIT: the work as GATE OUT saw it and Baton's files as Baton wrote them, with the session trailer,
 * and nothing else (never `git add -A`, which let concurrent agents commit each other's files; never the
 * bytes a background process wrote after the agent ended). A work file that differs now from what was
 * seen, or changed without being seen, is left out and named. Nothing to commit means no commit at all.
 */
export async function commitTaskChanges(request: CommitRequest): Promise<CommitResult> {
  const { root } = request;
  if (!present(join(root, ".git"))) {
    const inside = await git(root, ["rev-parse", "--is-inside-work-tree"]);
    if (!inside.ok) return { ok: true, committed: false, reason: "not a git repository", leftOut: [] };
  }
  const batonRel = request.baton.map((f) => relative(root, f.path));
  const now = await snapshotWork(root, workPathspecs(root, request.work, batonRel), request.work.record);
  if (!now.ok) return { ok: false, reason: now.reason };
  const seen = request.work.seen;
  const changed = agentChanged(root, now.snapshot, request.work.baseline);
  const entries: WorkSnapshot = seen ? { ...seen } : changed;
  const leftOut = seen ? changedSinceSnapshot(seen, changed) : [];
  const baton = await batonEntries(root, request.baton);
  if (!baton.ok) return { ok: false, reason: baton.reason };
  Object.assign(entries, baton.entries);
  leftOut.push(...baton.changed);
  const message = `${request.subject}\n\nSession: ${request.sessionId}\n`;
  const evidence = request.evidence ? { path: request.evidence, batonPaths: new Set(batonRel) } : undefined;
  const result = await commitEntries(root, entries, message, evidence);
  return result.ok ? { ...result, leftOut: leftOut.sort() } : result;
}

/**
 * Baton's files as entries, committed even where a .gitignore would hide them (Baton names its own paths):
 * its own bytes where it keeps them, else the file as it is under the lock Baton holds; and which of the
 * kept ones differ in the work tree now.
 */
async function batonEntries(
  root: string,
  files: readonly BatonFile[],
): Promise<{ ok: true; entries: WorkSnapshot; changed: string[] } | { ok: false; reason: string }> {
  const entries: WorkSnapshot = {};
  const changed: string[] = [];
  const hash = async (path: string, content: string) => {
    const blob = await git(root, ["hash-object", "-w", `--path=${path}`, "--stdin"], content);
    return blob.ok ? blob.stdout.trim() : null;
  };
  for (const file of files) {
    const path = relative(root, file.path).split(sep).join("/");
    const onDisk = present(file.path) ? readFileSync(file.path, "utf8") : null;
    const content = file.content ?? onDisk;
    if (content === null) {
      const tracked = await git(root, ["ls-files", "-z", "--", `:(literal)${path}`]);
      if (tracked.ok && tracked.stdout !== "") entries[path] = null;
      continue;
    }
    const blob = await hash(path, content);
    if (blob === null) return { ok: false, reason: `git hash-object failed for ${path}` };
    entries[path] = { mode: "100644", blob };
    const written = file.written === undefined ? file.content : file.written;
    if (written != null && onDisk !== written) changed.push(path);
  }
  return { ok: true, entries, changed };
}
