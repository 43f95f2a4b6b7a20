import {
  cpSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import type { ConfiguredCheck } from "../../config/index.js";
import { runGit } from "../../shared/git.js";
import { checkInputsAt } from "./check-inputs.js";
import { mergedPackage, mergedPyproject } from "./check-side.js";
import { withScratchTree } from "./scratch-tree.js";

/**
 * The verdict tree: the baseline commit, with the agent's changes to everything but the test side. The
 * baseline's tests, helpers, fixtures, runner configuration and Baton's configuration stay exactly as
 * committed, and none of the agent's new files a runner would load (a conftest, a `_test.go`, a `.pytest.ini`)
 * is there; package.json and pyproject.toml take the agent's dependencies and the baseline's runner
 * settings. The baseline's checks run there decide; what the agent did to its tests cannot change the question.
 * A file the plan names as one to change is the agent's, as the plan said.
 */
export interface VerdictTreePlan {
  commit: string;
  /** The agent's changes the verdict tree takes as they are (a path the agent removed is removed). */
  taken: string[];
  /** package.json / pyproject.toml as the verdict tree has them (null: absent). */
  merged: Map<string, string | null>;
  /** What the agent changed that the verdict tree holds at the baseline: its tree then differs from the verdict's. */
  held: string[];
}

/**
 * Files of the work tree that differ from `commit`, tracked or not (ignored files are not the work): a retry
 * is held to the baseline commit, so a test weakened by a refused try and left in the tree is not the baseline.
 */
export async function differingFromCommit(root: string, commit: string): Promise<string[]> {
  const tracked = await runGit(root, ["diff", "--name-only", "-z", "--no-renames", commit]);
  const untracked = await runGit(root, ["ls-files", "-z", "--others", "--exclude-standard"]);
  return [...new Set([...tracked.stdout.split("\0"), ...untracked.stdout.split("\0")])].filter(
    (p) => p !== "",
  );
}

function current(root: string, path: string): string | null {
  try {
    return readFileSync(join(root, path), "utf8");
  } catch {
    return null;
  }
}

export async function planVerdictTree(
  place: { root: string; storePrefix: string; commit: string },
  checks: readonly ConfiguredCheck[],
  allowed: string,
): Promise<VerdictTreePlan> {
  const { root, commit } = place;
  const inputs = await checkInputsAt(root, commit, checks, place.storePrefix);
  const plan: VerdictTreePlan = { commit, taken: [], merged: new Map(), held: [] };
  for (const path of (await differingFromCommit(root, commit)).sort()) {
    const name = basename(path);
    const merge =
      name === "package.json" ? mergedPackage : name === "pyproject.toml" ? mergedPyproject : null;
    if (allowed.includes(path) || !inputs.testSide(path)) plan.taken.push(path);
    else if (merge === null) plan.held.push(path);
    else {
      const before = await runGit(root, ["show", `${commit}:${path}`]);
      const now = current(root, path);
      const merged = merge(before.ok ? before.stdout : null, now);
      if (merged === now) plan.taken.push(path);
      else {
        plan.merged.set(path, merged);
        plan.held.push(path);
      }
    }
  }
  return plan;
}

/** Puts the agent's version of `path` (or its absence) into the tree: a link stays a link, a file keeps its mode. */
function take(root: string, tree: string, path: string): void {
  const from = join(root, path);
  const to = join(tree, path);
  rmSync(to, { recursive: true, force: true });
  let stat: ReturnType<typeof lstatSync>;
  try {
    stat = lstatSync(from);
  } catch {
    return;
  }
  mkdirSync(dirname(to), { recursive: true });
  if (stat.isSymbolicLink()) symlinkSync(readlinkSync(from), to);
  else cpSync(from, to, { recursive: true, verbatimSymlinks: true });
}

/**
 * Runs `use` in the verdict tree `plan` describes, made beside the repository and removed afterwards, with the
 * dependency folders `folders` (found when absent) linked in.
 */
export async function withVerdictTree<T>(
  root: string,
  plan: VerdictTreePlan,
  use: (tree: string, linked: string[]) => Promise<T>,
  folders?: readonly string[],
): Promise<T | null> {
  return withScratchTree(
    root,
    plan.commit,
    async (tree, linked) => {
      for (const path of plan.taken) take(root, tree, path);
      for (const [path, text] of plan.merged) {
        const to = join(tree, path);
        rmSync(to, { force: true });
        if (text === null) continue;
        mkdirSync(dirname(to), { recursive: true });
        writeFileSync(to, text);
      }
      return use(tree, linked);
    },
    folders,
  );
}
