import { relative, sep } from "node:path";
import { StoreNotCheckedOutError } from "../shared/errors.js";
import { present } from "../shared/present.js";
import type { StoreContext } from "./store-context.js";

/**
 * Refuses when git tracks the store but the work tree does not hold it: a sparse checkout that leaves the
 * store out (git marks its files skip-worktree), or the files deleted by hand. Baton then never starts a
 * second store beside the committed one. Passes when either file is here, or git keeps neither.
 */
export async function requireStoreCheckedOut(ctx: StoreContext): Promise<void> {
  const { paths, config } = ctx;
  if (present(paths.state) || present(paths.todo)) return;
  const rel = (path: string) => relative(config.root, path).split(sep).join("/");
  const files = [rel(paths.state), rel(paths.todo)];
  // Loaded here only: the store's barrel is what every task command loads, and it never spawns otherwise.
  const { runGit } = await import("../shared/git.js");
  const listed = await runGit(
    config.root,
    ["ls-files", "-t", "-z", "--", ...files.map((f) => `:(literal)${f}`)],
    {
      env: { GIT_OPTIONAL_LOCKS: "0" },
    },
  );
  if (!listed.ok) return;
  const entries = listed.stdout.split("\0").filter((e) => e !== "");
  if (entries.length === 0) return;
  const where = rel(paths.dir) || ".";
  const sparse = entries.some((e) => e.startsWith("S "));
  throw new StoreNotCheckedOutError(
    sparse
      ? `this sparse checkout leaves the task store out: git keeps ${where}/ (${entries.map((e) => e.slice(2)).join(", ")}) but the work tree does not have it`
      : `the task store is deleted from the work tree: git keeps ${where}/ (${entries.map((e) => e.slice(2)).join(", ")}) but the files are gone`,
    {
      hint: sparse
        ? `Add it to the checkout with \`git sparse-checkout add ${where}\`, then run again; nothing was written (a new store here would number tasks from 1 beside the committed one).`
        : `Restore it with \`git restore ${where}\`, then run again; nothing was written.`,
    },
  );
}
