import { createHash } from "node:crypto";
import { mkdirSync, readFileSync } from "node:fs";
import { dirname } from "node:path";
import type { ConfiguredCheck } from "../../config/index.js";
import type { TestCounts } from "../../evidence/index.js";
import { writeFileNamed } from "../../shared/atomic-write.js";
import { batonPaths } from "../../shared/baton-paths.js";
import { runGit } from "../../shared/git.js";
import type { CheckPlace } from "./check-sandbox.js";
import { runChecks } from "./project-checks.js";
import { withScratchTree } from "./scratch-tree.js";

/**
 * How many tests each check ran at the baseline: the checks run once on the baseline commit's tree, in a
 * scratch worktree (see scratch-tree.ts), and
 * the counts are cached by tree and check, so a baseline is measured once however many results are judged
 * against it.
 */
export type BaselineCounts = Record<string, (TestCounts & { ran?: string[] }) | null>;

function cacheKey(tree: string, checks: readonly ConfiguredCheck[]): string {
  const hash = createHash("sha256").update(tree);
  for (const c of checks) hash.update(`\0${c.name}\0${c.run}\0${c.report ?? ""}`);
  return hash.digest("hex").slice(0, 32);
}

async function measure(
  place: CheckPlace,
  commit: string,
  checks: readonly ConfiguredCheck[],
): Promise<BaselineCounts> {
  const runs = await withScratchTree(place.root, commit, (tree) => runChecks(checks, tree, place));
  if (runs === null) return Object.fromEntries(checks.map((c) => [c.name, null]));
  return Object.fromEntries(
    runs.map((r) => [
      r.name,
      r.counts ? { ...r.counts, ...(r.testIds ? { ran: r.testIds.ran } : {}) } : null,
    ]),
  );
}

export async function baselineCounts(
  place: CheckPlace,
  commit: string,
  checks: readonly ConfiguredCheck[],
): Promise<BaselineCounts> {
  const { root } = place;
  const tree = await runGit(root, ["rev-parse", `${commit}^{tree}`]);
  const path = batonPaths(root).baselineCounts(cacheKey(tree.ok ? tree.stdout.trim() : commit, checks));
  try {
    return JSON.parse(readFileSync(path, "utf8")) as BaselineCounts;
  } catch {
    const counts = await measure(place, commit, checks);
    mkdirSync(dirname(path), { recursive: true });
    writeFileNamed(path, JSON.stringify(counts));
    return counts;
  }
}
