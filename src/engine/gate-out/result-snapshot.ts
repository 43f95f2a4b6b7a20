import { lstatSync, readlinkSync } from "node:fs";
import { join, relative } from "node:path";
import { CONTROL_FILE_GLOBS, TEMP_FILE_GLOB } from "../../shared/baton-paths.js";
import { runGit } from "../../shared/git.js";
import { present } from "../../shared/present.js";
import type { GitBaseline } from "../../state/index.js";
import { blobId } from "../run/index.js";

/** One file as git would commit it: its mode and the id of its bytes, written to git's object store. */
export interface SnapshotEntry {
  mode: "100644" | "100755" | "120000";
  blob: string;
}

/** Repository-relative path → the file as seen, or null: seen deleted. */
export type WorkSnapshot = Record<string, SnapshotEntry | null>;

const git = (root: string, args: string[], stdin?: string) =>
  runGit(root, args, { timeoutMs: 60_000, ...(stdin === undefined ? {} : { stdin }) });

const nulList = (out: string) => out.split("\0").filter((p) => p !== "");

/**
 * The files under `pathspecs` as `git add --all` would take them, hashed into git's object store now: every
 * tracked or untracked, not ignored file that exists, and every tracked one that is gone (null). Taken when
 * GATE OUT accepts a result, it is what the agent was seen to leave; COMMIT commits these bytes, so a
 * change made afterwards by anything else never rides along.
 */
export async function snapshotWork(
  root: string,
  pathspecs: readonly string[],
  forced: readonly string[] = [],
): Promise<{ ok: true; snapshot: WorkSnapshot } | { ok: false; reason: string }> {
  // Only exclusions would match the whole tree.
  const listed = pathspecs.every((p) => p.startsWith(":(exclude"))
    ? { ok: true as const, stdout: "" }
    : await git(root, ["ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", ...pathspecs]);
  if (!listed.ok)
    return { ok: false, reason: `git ls-files failed: ${listed.stderr.trim() || listed.message}` };
  const snapshot: WorkSnapshot = {};
  const regular: string[] = [];
  // Baton's record (artifacts, summaries) is committed even where a .gitignore hides it: it names them itself.
  const forcedThere = forced.filter((p) => present(join(root, p)));
  for (const path of new Set([...nulList(listed.stdout), ...forcedThere])) {
    let stat: ReturnType<typeof lstatSync>;
    try {
      stat = lstatSync(join(root, path));
    } catch {
      snapshot[path] = null;
      continue;
    }
    if (stat.isSymbolicLink()) {
      const blob = await git(
        root,
        ["hash-object", "-w", "--no-filters", "--stdin"],
        readlinkSync(join(root, path)),
      );
      if (!blob.ok) return { ok: false, reason: `git hash-object failed for ${path}: ${blob.stderr.trim()}` };
      snapshot[path] = { mode: "120000", blob: blob.stdout.trim() };
    } else if (stat.isFile()) {
      regular.push(path);
      snapshot[path] = { mode: stat.mode & 0o111 ? "100755" : "100644", blob: "" };
    }
    // A directory here is a submodule: its commit stays as HEAD has it.
  }
  if (regular.some((p) => p.includes("\n"))) {
    return { ok: false, reason: "a file name holds a line break; git hash-object cannot read it" };
  }
  if (regular.length > 0) {
    // --stdin-paths applies the path's filters (line endings, LFS) exactly as `git add` would.
    const hashed = await git(root, ["hash-object", "-w", "--stdin-paths"], `${regular.join("\n")}\n`);
    if (!hashed.ok)
      return { ok: false, reason: `git hash-object failed: ${hashed.stderr.trim() || hashed.message}` };
    const ids = hashed.stdout.split("\n").filter((l) => l !== "");
    regular.forEach((path, i) => {
      snapshot[path]!.blob = ids[i]!;
    });
  }
  return { ok: true, snapshot };
}

/**
 * The snapshot without the files that are exactly as they were at GATE IN (dirty or untracked then, and
 * untouched since): a file the agent did not change is never part of its commit, whoever put it there.
 */
export function agentChanged(
  root: string,
  snapshot: WorkSnapshot,
  baseline: GitBaseline | null | undefined,
): WorkSnapshot {
  if (!baseline) return snapshot;
  const kept: WorkSnapshot = {};
  for (const [path, entry] of Object.entries(snapshot)) {
    const before = Object.hasOwn(baseline.dirty, path) ? baseline.dirty[path] : undefined;
    if (before !== undefined && before === (entry === null ? null : blobId(join(root, path)))) continue;
    kept[path] = entry;
  }
  return kept;
}

/** Paths whose file now differs from the snapshot: what changed since it was taken. */
export function changedSinceSnapshot(seen: WorkSnapshot, now: WorkSnapshot): string[] {
  const paths = new Set([...Object.keys(seen), ...Object.keys(now)]);
  return [...paths]
    .filter((p) => {
      const a = seen[p];
      const b = now[p];
      if (a === undefined || b === undefined) return (a ?? null) !== (b ?? null);
      return a?.blob !== b?.blob || a?.mode !== b?.mode;
    })
    .sort();
}

/** What a commit's work is: files (absolute) and a task folder. */
export interface WorkPaths {
  paths: readonly string[];
  taskFolder: string | null;
  /** Repository-relative files of Baton's record (artifacts, a phase summary): taken even when ignored. */
  record?: readonly string[] | undefined;
}

/**
 * Temp files of Baton's atomic writes (`.<name>.baton-<pid>-<hex>.tmp`): one left by a write that was
 * killed is never committed, wherever it lies.
 */
const TEMP_FILE_EXCLUDE = `:(exclude,glob)**/${TEMP_FILE_GLOB}`;

/** Pathspecs of the work: its files and the task folder, never a control file, a temp file or one of `baton`. */
export function workPathspecs(root: string, work: WorkPaths, baton: readonly string[] = []): string[] {
  const specs = work.paths.map((p) => relative(root, p));
  if (work.taskFolder && present(work.taskFolder)) {
    const folder = relative(root, work.taskFolder);
    specs.push(folder, ...CONTROL_FILE_GLOBS.map((f) => `:(exclude)${folder}/${f}`));
  }
  if (specs.every((p) => p.startsWith(":(exclude"))) return [];
  return [...specs, TEMP_FILE_EXCLUDE, ...baton.map((p) => `:(exclude,literal)${p}`)];
}

/**
 * What of a snapshot differs from HEAD — what its commit will change — as path → object id (null:
 * deleted). The evidence lists exactly this, and `baton verify` holds the commit to it.
 */
export async function snapshotDelta(
  root: string,
  snapshot: WorkSnapshot,
): Promise<Record<string, string | null>> {
  const paths = Object.keys(snapshot).sort();
  if (paths.length === 0) return {};
  const tree = await git(root, ["ls-tree", "-r", "-z", "HEAD", "--", ...paths]);
  const head = new Map<string, string>();
  for (const line of tree.ok ? nulList(tree.stdout) : []) {
    const match = /^\d+ \w+ ([0-9a-f]+)\t(.*)$/s.exec(line);
    if (match) head.set(match[2]!, match[1]!);
  }
  const delta: Record<string, string | null> = {};
  for (const path of paths) {
    const now = snapshot[path]?.blob ?? null;
    if (now !== (head.get(path) ?? null)) delta[path] = now;
  }
  return delta;
}
