import { join } from "node:path";
import { runGit } from "../../shared/git.js";
import { present } from "../../shared/present.js";

/**
 * The phase's work files as git would store them now (filters applied, as `git add` does), for its evidence:
 * path → blob id, null for a file the phase deleted. The phase commit is then held to exactly these (and the
 * evidence re-stated, signed again, where git stored other bytes).
 */
export async function phaseWorkBlobs(
  root: string,
  files: readonly string[],
): Promise<Record<string, string | null>> {
  const work: Record<string, string | null> = {};
  const there = files.filter((f) => present(join(root, f)));
  for (const f of files) if (!there.includes(f)) work[f] = null;
  if (there.length === 0) return work;
  const hashed = await runGit(root, ["hash-object", "--stdin-paths"], { stdin: `${there.join("\n")}\n` });
  const blobs = hashed.ok ? hashed.stdout.trim().split("\n") : [];
  there.forEach((f, i) => {
    work[f] = blobs[i] ?? null;
  });
  return work;
}
