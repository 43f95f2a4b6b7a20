import { homedir } from "node:os";
import { isAbsolute, join, relative, sep } from "node:path";
import { runGit } from "../../shared/git.js";
import { changedSince } from "../run/index.js";
import { type Gate, refuse } from "./gate-types.js";

/**
 * The repository's hooks folder relative to the work tree, when it lies in it (husky's `.husky/`); else null.
 * Read from the configuration as the repository sets it: Baton's own git runs no hooks (its `command`-scope
 * setting), which is not where the person's git finds them.
 */
async function hooksInWorkTree(root: string): Promise<string | null> {
  const [configured, common] = await Promise.all([
    runGit(root, ["config", "--show-scope", "--get-all", "core.hooksPath"], {
      env: { GIT_OPTIONAL_LOCKS: "0" },
    }),
    runGit(root, ["rev-parse", "--git-common-dir"], { env: { GIT_OPTIONAL_LOCKS: "0" } }),
  ]);
  if (!common.ok) return null;
  const own = configured.ok
    ? configured.stdout
        .split("\n")
        .filter((l) => l !== "" && !l.startsWith("command\t"))
        .map((l) => l.slice(l.indexOf("\t") + 1))
    : [];
  const hooks = own.at(-1);
  if (hooks === undefined || hooks === "") return null;
  const absolute = (p: string) => (isAbsolute(p) ? p : join(root, p));
  const rel = relative(root, absolute(hooks.replace(/^~(?=\/)/, homedir())));
  const gitDir = relative(root, absolute(common.stdout.trim()));
  if (rel === "" || rel.startsWith("..") || isAbsolute(rel)) return null;
  if (rel === gitDir || rel.startsWith(`${gitDir}${sep}`)) return null;
  return rel.split(sep).join("/");
}

/**
 * Baton's own commits run no hooks, but the person's next `git commit` does. Hooks kept in the work tree
 * (`core.hooksPath` = `.husky/`, …) are files an agent can reach: one it changed would run, unsandboxed, in
 * the person's next commit. Such a change is refused, for every operation; hooks under `.git/` are read-only in
 * the agent's sandbox.
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
