import { readFileSync } from "node:fs";
import { runGit } from "../../shared/git.js";
import { latestPlanFile, storePrefix, taskTypeOf } from "../../state/index.js";
import { differingFromCommit, tamperedInputs } from "../gate-out/check-tampering.js";
import type { GateInStep } from "./gate-in-step.js";

/**
 * An implement's checks hold the work to the tests, runner configuration and scripts as HEAD has them (GATE
 * OUT's CHECKS_TAMPERED). One of them already differing from HEAD — a test written by hand and not committed, a
 * test a refused try weakened and left — would refuse the result after the agent was paid: say so now, with
 * what to do. A file the plan names may differ, as it may change.
 */
export const refuseDifferingCheckInputs: GateInStep = async ({ run }) => {
  const { config } = run;
  if (run.operation !== "implement" || !config.commit) return { ok: true };
  const language = taskTypeOf(run.task) ?? config.defaultLanguage;
  const checks = config.checks.filter((c) => c.languages === null || c.languages.includes(language));
  if (checks.length === 0) return { ok: true };
  const head = await runGit(config.root, ["rev-parse", "--verify", "-q", "HEAD"]);
  if (!head.ok) return { ok: true };
  const commit = head.stdout.trim();
  const differing = await differingFromCommit(config.root, commit);
  if (differing.length === 0) return { ok: true };
  const place = { root: config.root, storePrefix: storePrefix(config.root, config.specsDir), commit };
  const tampered = await tamperedInputs(place, checks, differing, planText(run));
  if (tampered.length === 0) return { ok: true };
  const list = tampered.join(" ");
  return {
    ok: false,
    message:
      `${tampered.join(", ")} ${tampered.length === 1 ? "differs" : "differ"} from HEAD, and the checks hold the work to the tests, runner configuration and scripts as committed: ` +
      `commit ${tampered.length === 1 ? "it" : "them"} first (\`git add ${list} && git commit\`) or restore ${tampered.length === 1 ? "it" : "them"} (\`git checkout HEAD -- ${list}\`), or name ${tampered.length === 1 ? "it" : "them"} in the plan as a file to change; nothing was written`,
  };
};

function planText(run: Parameters<GateInStep>[0]["run"]): string {
  const path = latestPlanFile(run.config.root, run.folder, run.task.artifacts ?? []);
  if (!path) return "";
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}
