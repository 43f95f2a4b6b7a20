import { isAbsolute, join, relative, sep } from "node:path";
import { runGit } from "../../shared/git.js";
import { changedSince } from "../gate-in/work-tree-baseline.js";
import { type Gate, refuse } from "./gate-types.js";

/** The repository's hooks folder relative to the work tree, when it lies in it (husky's `.husky/`); else null. */
async function hooksInWorkTree(root: string): Promise<string | null> {
  const paths = await runGit(root, ["rev-parse", "--git-path", "hooks", "--git-common-dir"], {
    env: { GIT_OPTIONAL_LOCKS: "0" },
  });
  if (!paths.ok) return null;
  const [hooks = "", common = ""] = paths.stdout.split("\n");
  const absolute = (p: string) => (isAbsolute(p) ? p : join(root, p));
  const rel = relative(root, absolute(hooks));
  const gitDir = relative(root, absolute(common));
  if (rel === "" || rel.startsWith("..") || isAbsolute(rel)) return null;
  if (rel === gitDir || rel.startsWith(`${gitDir}${sep}`)) return null;
  return rel.split(sep).join("/");
}

/**
 * Git runs the repository's commit hooks when Baton commits, and Baton states in the evidence what they made
 * git store. Hooks kept in the work tree (`core.hooksPath` = `.husky/`, …) are files an agent can reach:
 * one it changed would run at COMMIT and write into Baton's commit. Such a change is refused, for every
 * operation; hooks under `.git/` are read-only in the agent's sandbox.
 */
export const checkHooks: Gate = async (ctx) => {
  if (!ctx.baseline) return { ok: true };
  const hooks = await hooksInWorkTree(ctx.repoRoot);
  if (hooks === null) return { ok: true };
  const inside = (path: string) => path === hooks || path.startsWith(`${hooks}/`);
  const changed = await changedSince(ctx.repoRoot, ctx.baseline, (path) => !inside(path));
  if (changed.length === 0) return { ok: true };
  return refuse(
    ctx,
    "HOOKS_CHANGED",
    `the work changed the repository's commit hooks (${changed.join(", ")}, in ${hooks}/, which git runs when Baton commits): hooks are the repository's, never the agent's to change; restore them and run again`,
  );
};
