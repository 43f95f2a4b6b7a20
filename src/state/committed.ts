import { readFileSync } from "node:fs";
import { relative, sep } from "node:path";
import { gitBlobId, runGit } from "../shared/git.js";
import type { ForeignChange } from "./seal.js";

/** The blob ids HEAD holds for these repository-relative paths; a path HEAD lacks maps to null. */
async function committedBlobs(root: string, rels: string[]): Promise<Map<string, string | null> | null> {
  const result = await runGit(root, ["ls-tree", "-z", "HEAD", "--", ...rels], { timeoutMs: 10_000 });
  if (!result.ok) return null;
  const blobs = new Map<string, string | null>(rels.map((rel) => [rel, null]));
  for (const record of result.stdout.split("\0")) {
    const match = /^\d+ blob ([0-9a-f]+)\t(.*)$/s.exec(record);
    if (match) blobs.set(match[2]!, match[1]!);
  }
  return blobs;
}

/**
 * The changes that are not what git itself put there: a store file that is byte for byte the version
 * HEAD holds came from a pull, a checkout or a commit of the person's — git history is their record —
 * while any other difference is an edit nobody has accepted yet. Without git every change counts.
 */
export async function uncommittedChanges(
  root: string,
  changes: readonly ForeignChange[],
): Promise<ForeignChange[]> {
  const rel = (path: string) => relative(root, path).split(sep).join("/");
  const blobs = await committedBlobs(
    root,
    changes.map((c) => rel(c.path)),
  );
  if (blobs === null) return [...changes];
  return changes.filter((change) => {
    const committed = blobs.get(rel(change.path)) ?? null;
    if (change.kind === "deleted") return committed !== null;
    try {
      return committed !== gitBlobId(readFileSync(change.path));
    } catch {
      return true;
    }
  });
}
