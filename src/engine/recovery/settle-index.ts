import { rmSync } from "node:fs";
import { join } from "node:path";
import { runGit } from "../../shared/git.js";

/**
 * The person's index after a run died between two of Baton's git steps. Baton commits through an index of
 * its own and then brings the shared index to HEAD for the paths it committed; a worktree phase's result is
 * first applied to the shared index and tree, then committed. A kill between those steps leaves the shared
 * index out of step with HEAD on Baton's own paths, and a person's next `git commit` would then undo Baton's
 * work (a committed file staged as deleted) or commit a phase Baton never recorded.
 *
 * Only the dead session's paths are touched (those its commits on HEAD changed, and those its phase branches
 * carry), and only where the person's own state cannot be: a path whose work-tree file is what HEAD holds
 * gets HEAD's index entry (the sync the run did not finish); a path whose index entry and work-tree file are
 * both exactly the session's unrecorded phase result is put back to HEAD (the apply is undone, so the re-run
 * starts clean). Anything else is the person's, kept, and returned for the report.
 */
export async function settleSharedIndex(
  root: string,
  sessionId: string,
): Promise<{ synced: string[]; undone: string[]; kept: string[] }> {
  const done = { synced: [] as string[], undone: [] as string[], kept: [] as string[] };
  const staged = await lines(root, ["diff", "--cached", "--name-only", "-z", "--no-renames", "HEAD"]);
  if (staged.length === 0) return done;
  const committed = new Set(await sessionCommitPaths(root, sessionId));
  const phaseBlobs = await phaseBranchBlobs(root, sessionId);
  const ours = staged.filter((p) => committed.has(p) || phaseBlobs.has(p));
  if (ours.length === 0) return done;
  const index = await blobsOf(root, ["ls-files", "-s", "-z", "--", ...literal(ours)], 1);
  const head = await blobsOf(root, ["ls-tree", "-r", "-z", "HEAD", "--", ...literal(ours)], 2);
  for (const path of ours) {
    const tree = await workTreeBlob(root, path);
    if (tree === (head.get(path) ?? null)) done.synced.push(path);
    else if (tree === (index.get(path) ?? null) && phaseBlobs.get(path)?.has(tree ?? DELETED))
      done.undone.push(path);
    else done.kept.push(path);
  }
  if (done.synced.length + done.undone.length > 0)
    await runGit(root, ["reset", "-q", "--pathspec-from-file=-", "--pathspec-file-nul", "HEAD"], {
      stdin: [...done.synced, ...done.undone].map((p) => `:(literal)${p}\0`).join(""),
    });
  for (const path of done.undone) {
    if (head.has(path)) await runGit(root, ["checkout", "-q", "HEAD", "--", `:(literal)${path}`]);
    else rmSync(join(root, path), { force: true });
  }
  return done;
}

/** A phase result that removes the path: no blob in the index, none in the work tree. */
const DELETED = "deleted";

const literal = (paths: readonly string[]) => paths.map((p) => `:(literal)${p}`);

async function lines(root: string, args: string[]): Promise<string[]> {
  const result = await runGit(root, args);
  return result.ok ? result.stdout.split("\0").filter((p) => p !== "") : [];
}

/** path → blob id from `ls-files -s` (`mode blob stage\tpath`) or `ls-tree` (`mode type blob\tpath`). */
async function blobsOf(root: string, args: string[], field: number): Promise<Map<string, string>> {
  const map = new Map<string, string>();
  for (const entry of await lines(root, args)) {
    const tab = entry.indexOf("\t");
    map.set(entry.slice(tab + 1), entry.slice(0, tab).split(" ")[field] ?? "");
  }
  return map;
}

async function workTreeBlob(root: string, path: string): Promise<string | null> {
  const hashed = await runGit(root, ["hash-object", "--", path]);
  return hashed.ok ? hashed.stdout.trim() : null;
}

/** The paths the session's commits on HEAD changed (its phase commits and its COMMIT). */
async function sessionCommitPaths(root: string, sessionId: string): Promise<string[]> {
  const log = await runGit(root, [
    "log",
    "-n",
    "200",
    "--format=",
    "--name-only",
    "-z",
    "--no-renames",
    `--grep=^Session: ${sessionId}$`,
    "HEAD",
  ]);
  return log.ok
    ? log.stdout
        .split("\0")
        .map((p) => p.trim())
        .filter((p) => p !== "")
    : [];
}

/** path → the blobs the session's phase branches (`baton/<session>/phase-*`) give it. */
async function phaseBranchBlobs(root: string, sessionId: string): Promise<Map<string, Set<string>>> {
  const blobs = new Map<string, Set<string>>();
  const refs = await runGit(root, [
    "for-each-ref",
    "--format=%(objectname)",
    `refs/heads/baton/${sessionId}/`,
  ]);
  for (const tip of refs.ok ? refs.stdout.split("\n").filter(Boolean) : []) {
    const changed = await runGit(root, ["diff-tree", "-r", "-z", "--no-renames", `${tip}^`, tip]);
    if (!changed.ok) continue;
    const fields = changed.stdout.split("\0");
    for (let i = 0; i + 1 < fields.length; i += 2) {
      const id = fields[i]!.split(" ")[3] ?? "";
      const blob = /^0+$/.test(id) ? DELETED : id;
      const path = fields[i + 1]!;
      if (!blobs.has(path)) blobs.set(path, new Set());
      blobs.get(path)!.add(blob);
    }
  }
  return blobs;
}

/**
 * The dead session's phase branches and their worktrees, once its index is settled: each re-run works under
 * a session of its own, so these would only pile up (`baton/<session>/phase-<id>`). A branch its errors name
 * for the person to merge by hand (a phase whose work could not come back) is kept.
 */
export async function dropDeadPhaseBranches(
  root: string,
  sessionId: string,
  keep: ReadonlySet<string>,
): Promise<string[]> {
  const prefix = `refs/heads/baton/${sessionId}/`;
  const listed = await runGit(root, ["worktree", "list", "--porcelain", "-z"]);
  const records = listed.ok ? listed.stdout.split("\0\0") : [];
  const dropped: string[] = [];
  for (const record of records) {
    const path = /^worktree (.+)$/m.exec(record.replaceAll("\0", "\n"))?.[1];
    const branch = /^branch (.+)$/m.exec(record.replaceAll("\0", "\n"))?.[1];
    if (path && branch?.startsWith(prefix) && !keep.has(branch.slice("refs/heads/".length)))
      await runGit(root, ["worktree", "remove", "--force", "--force", path]);
  }
  await runGit(root, ["worktree", "prune"]);
  const refs = await runGit(root, ["for-each-ref", "--format=%(refname:short)", prefix]);
  for (const branch of refs.ok ? refs.stdout.split("\n").filter(Boolean) : []) {
    if (keep.has(branch)) continue;
    if ((await runGit(root, ["branch", "-D", "--quiet", branch])).ok) dropped.push(branch);
  }
  return dropped;
}
