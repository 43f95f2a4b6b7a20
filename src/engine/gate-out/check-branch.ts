import { readHeadRef } from "../../shared/git.js";
import { type Gate, refuse } from "./gate-types.js";

const describeRef = (ref: string | null) => (ref ? ref.replace(/^refs\/heads\//, "") : "a detached HEAD");

/**
 * The checkout the run started on is still the one checked out: a `git checkout` or `git switch` while the
 * agent ran (or HEAD detached) would record and commit the result on another branch, against another
 * branch's store. The run stops at its next step; its lock and checkpoint are released and nothing is
 * committed.
 */
export const checkBranch: Gate = async (ctx) => {
  const baseline = ctx.baseline;
  if (!baseline || baseline.headRef === undefined) return { ok: true };
  const head = await readHeadRef(ctx.repoRoot);
  if (!head.ok) return refuse(ctx, "GIT_FAILED", `${head.message}: nothing is recorded or committed; rerun`);
  const now = head.ref;
  if (now === baseline.headRef) return { ok: true };
  return refuse(
    ctx,
    "BRANCH_CHANGED",
    `the run started on ${describeRef(baseline.headRef)} and ${describeRef(now)} is checked out now: nothing is recorded or committed; check out ${describeRef(baseline.headRef)} again and rerun`,
  );
};
