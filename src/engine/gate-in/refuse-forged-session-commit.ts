import { sealKeys, unsealedClaims } from "../../evidence/index.js";
import { storePrefix } from "../../state/index.js";
import type { GateInStep } from "./gate-in-step.js";

/**
 * A commit since Baton's last sealed one that types Baton's `Session:` trailer for a session Baton never ran
 * here passes itself off as Baton's result: a run must not build on it. Baton's own work rebased or squashed
 * (a session whose evidence is in the tree) loses its seal honestly and passes; `baton verify` lists it.
 */
export const refuseForgedSessionCommit: GateInStep = async ({ run }) => {
  const root = run.config.root;
  const claims = await unsealedClaims(
    root,
    storePrefix(root, run.config.specsDir),
    await sealKeys(root),
    "newest",
  );
  const forged = claims.filter((c) => !c.knownSession);
  if (forged.length === 0) return { ok: true };
  const named = forged
    .slice(0, 3)
    .map((c) => `${c.commit.slice(0, 12)} ("${c.subject}", Session: ${c.session})`)
    .join(", ");
  return {
    ok: false,
    message:
      `${forged.length === 1 ? "commit" : `${forged.length} commits, among them`} ${named} ${forged.length === 1 ? "carries" : "carry"} ` +
      "Baton's Session trailer for a session Baton never ran here, without Baton's seal: made to pass as a Baton result. " +
      `Drop the trailer from ${forged.length === 1 ? "it" : "them"} (an unpushed commit: git commit --amend or git rebase -i), ` +
      "or, if a person made it on purpose, accept it with `baton key accept-commit <sha>` outside any agent session " +
      "(a sealed commit that names it, which `baton verify` reports); nothing was written.",
  };
};
