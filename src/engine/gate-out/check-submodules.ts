import { join } from "node:path";
import { runGit } from "../../shared/git.js";
import { present } from "../../shared/present.js";
import { claimedPath } from "./check-changes.js";
import { type Gate, refuse } from "./gate-types.js";

/** The repository's submodules: paths whose index entry is a commit (mode 160000). */
async function submodulePaths(root: string): Promise<string[]> {
  // Without .gitmodules there are none to find, and the whole index is not listed at every barrier.
  if (!present(join(root, ".gitmodules"))) return [];
  const listed = await runGit(root, ["ls-files", "-s", "-z"], { env: { GIT_OPTIONAL_LOCKS: "0" } });
  if (!listed.ok) return [];
  return listed.stdout
    .split("\0")
    .filter((entry) => entry.startsWith("160000 "))
    .map((entry) => entry.slice(entry.indexOf("\t") + 1));
}

/**
 * Work inside a submodule cannot be part of Baton's commit: that commit is of this repository, where a
 * submodule is only a pointer to a commit of its own, which the agent cannot make (its history is read-only
 * to it). Such a change would be dropped without a word, so the result is refused, naming the submodule and
 * what the agent changed or claimed there.
 */
export const checkSubmodules: Gate = async (ctx) => {
  if (ctx.operation !== "implement" || !ctx.baseline) return { ok: true };
  const submodules = await submodulePaths(ctx.repoRoot);
  if (submodules.length === 0) return { ok: true };
  const claimed = (ctx.metadata?.files_changed ?? [])
    .map((f) => claimedPath(ctx.repoRoot, f))
    .flatMap((c) => (c.ok ? [c.path] : []));
  const touched = [...claimed, ...(await changedSubmodules(ctx.repoRoot, submodules, ctx.baseline.dirty))];
  for (const submodule of submodules) {
    const inside = touched.filter((p) => p === submodule || p.startsWith(`${submodule}/`));
    if (inside.length === 0) continue;
    return refuse(
      ctx,
      "SUBMODULE_CHANGED",
      `the work changed the submodule ${submodule} (${[...new Set(inside)].join(", ")}): a commit of this repository only points at a commit of ${submodule}, which must be made in ${submodule} itself; make the change there (or run Baton in ${submodule}), then update the pointer here`,
    );
  }
  return { ok: true };
};

/** Submodules whose checkout differs from what the index records, and did not at GATE IN. */
async function changedSubmodules(
  root: string,
  submodules: readonly string[],
  dirtyAtBaseline: Record<string, string | null>,
): Promise<string[]> {
  const status = await runGit(
    root,
    [
      "status",
      "--porcelain=v2",
      "-z",
      "--ignore-submodules=none",
      "--",
      ...submodules.map((s) => `:(literal)${s}`),
    ],
    { env: { GIT_OPTIONAL_LOCKS: "0" } },
  );
  if (!status.ok) return [];
  return status.stdout
    .split("\0")
    .filter((entry) => entry.startsWith("1 "))
    .map((entry) => entry.split(" ").slice(8).join(" "))
    .filter((path) => !Object.hasOwn(dirtyAtBaseline, path));
}
