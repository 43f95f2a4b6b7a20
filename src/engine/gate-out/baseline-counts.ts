import { createHash } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { TestCounts } from "../../evidence/index.js";
import { BATON_DIR, batonPaths } from "../../shared/baton-paths.js";
import { runGit } from "../../shared/git.js";
import { type ConfiguredCheck, runChecks } from "./project-checks.js";

/**
 * How many tests each check ran at the baseline: the checks run once on the baseline commit's tree, in a
 * scratch worktree beside the repository (its ignored folders, node_modules and the like, linked in), and
 * the counts are cached by tree and check, so a baseline is measured once however many results are judged
 * against it.
 */
export type BaselineCounts = Record<string, TestCounts | null>;

function cacheKey(tree: string, checks: readonly ConfiguredCheck[]): string {
  const hash = createHash("sha256").update(tree);
  for (const c of checks) hash.update(`\0${c.name}\0${c.run}\0${c.report ?? ""}`);
  return hash.digest("hex").slice(0, 32);
}

/** Links the repository's ignored top-level folders and files (dependencies, virtualenvs) into the scratch tree. */
async function linkIgnored(root: string, scratch: string): Promise<void> {
  const ignored = await runGit(root, [
    "ls-files",
    "--others",
    "--ignored",
    "--exclude-standard",
    "--directory",
    "-z",
  ]);
  if (!ignored.ok) return;
  const tops = new Set(
    ignored.stdout
      .split("\0")
      .filter(Boolean)
      .map((p) => p.replace(/\/$/, "").split("/")[0]!),
  );
  for (const top of tops) {
    if (top === BATON_DIR || existsSync(join(scratch, top))) continue;
    symlinkSync(join(root, top), join(scratch, top));
  }
}

async function measure(
  root: string,
  commit: string,
  checks: readonly ConfiguredCheck[],
): Promise<BaselineCounts> {
  const scratch = join(mkdtempSync(join(tmpdir(), "baton-baseline-")), "tree");
  const added = await runGit(root, ["worktree", "add", "--detach", "--quiet", scratch, commit]);
  if (!added.ok) return Object.fromEntries(checks.map((c) => [c.name, null]));
  try {
    await linkIgnored(root, scratch);
    const runs = await runChecks(checks, scratch);
    return Object.fromEntries(runs.map((r) => [r.name, r.counts ?? null]));
  } finally {
    await runGit(root, ["worktree", "remove", "--force", scratch]);
    rmSync(dirname(scratch), { recursive: true, force: true });
  }
}

export async function baselineCounts(
  root: string,
  commit: string,
  checks: readonly ConfiguredCheck[],
): Promise<BaselineCounts> {
  const tree = await runGit(root, ["rev-parse", `${commit}^{tree}`]);
  const path = batonPaths(root).baselineCounts(cacheKey(tree.ok ? tree.stdout.trim() : commit, checks));
  try {
    return JSON.parse(readFileSync(path, "utf8")) as BaselineCounts;
  } catch {
    const counts = await measure(root, commit, checks);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, JSON.stringify(counts));
    return counts;
  }
}
