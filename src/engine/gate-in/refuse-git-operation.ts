import { isAbsolute, join } from "node:path";
import { runGit } from "../../shared/git.js";
import { present } from "../../shared/present.js";
import type { GateInStep } from "./gate-in-step.js";

/**
 * git's marks of an operation in progress (paths in the git dir) and what ends each, in the order
 * `git status` tells them apart: `rebase-apply/applying` makes `rebase-apply` a `git am`, and a cherry-pick
 * or revert of several commits whose conflict was committed by hand has only its `sequencer/todo` left.
 */
const IN_PROGRESS: ReadonlyArray<{ mark: string; what: string; end: string }> = [
  { mark: "MERGE_HEAD", what: "a merge", end: "`git merge --continue` or `git merge --abort`" },
  { mark: "rebase-apply/applying", what: "`git am`", end: "`git am --continue` or `git am --abort`" },
  { mark: "rebase-apply", what: "a rebase", end: "`git rebase --continue` or `git rebase --abort`" },
  { mark: "rebase-merge", what: "a rebase", end: "`git rebase --continue` or `git rebase --abort`" },
  {
    mark: "CHERRY_PICK_HEAD",
    what: "a cherry-pick",
    end: "`git cherry-pick --continue` or `git cherry-pick --abort`",
  },
  { mark: "REVERT_HEAD", what: "a revert", end: "`git revert --continue` or `git revert --abort`" },
  { mark: "BISECT_LOG", what: "a bisect", end: "`git bisect reset`" },
  {
    mark: "sequencer/todo",
    what: "a cherry-pick or revert of several commits",
    end: "`git cherry-pick --continue|--abort` (or `git revert --continue|--abort`)",
  },
];

/**
 * The git operation the repository is in the middle of, with how to end it; null when there is none (or
 * no repository). A run recorded mid-operation lands on a commit the operation then rewrites or drops.
 */
export async function gitOperationInProgress(root: string): Promise<{ what: string; end: string } | null> {
  const paths = await runGit(root, ["rev-parse", ...IN_PROGRESS.flatMap((o) => ["--git-path", o.mark])], {
    env: { GIT_OPTIONAL_LOCKS: "0" },
  });
  if (!paths.ok) return null;
  const resolved = paths.stdout.split("\n");
  for (const [i, operation] of IN_PROGRESS.entries()) {
    const path = resolved[i];
    if (path && present(isAbsolute(path) ? path : join(root, path))) return operation;
  }
  return null;
}

/** GATE IN refuses while git is in the middle of a merge, rebase, `git am`, cherry-pick, revert or bisect. */
export const refuseGitOperation: GateInStep = async ({ run }) => {
  const operation = await gitOperationInProgress(run.config.root);
  if (!operation) return { ok: true };
  return {
    ok: false,
    message: `the repository is in the middle of ${operation.what}: a result recorded now would land on a commit it rewrites or drops; finish it with ${operation.end}, then run again`,
  };
};
