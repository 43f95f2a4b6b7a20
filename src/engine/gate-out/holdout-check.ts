import { cpSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { ConfiguredCheck } from "../../config/index.js";
import type { CheckRun } from "../../evidence/index.js";
import type { SandboxPolicy } from "../../runners/index.js";
import { batonPaths, holdoutLogPath } from "../../shared/baton-paths.js";
import { present } from "../../shared/present.js";
import { runOneCheck } from "./run-one-check.js";

/**
 * A holdout check: files the agent never sees (a folder outside the repository, hidden from every
 * sandbox) decide whether the work passes, so a solution that special-cases the visible tests fails.
 * They are copied into `.baton/holdout/<check>/` (ignored, never committed, hidden from every agent's and
 * every other check's sandbox) only while the check runs at an operation's GATE OUT, and `$BATON_HOLDOUT_DIR`
 * names them. What it printed goes to a log beside the signing key for the person (holdoutLogPath), never into
 * the repository or a message: an agent in a session reads gate-out's output, a later run's agent reads the
 * errors and `.baton/`.
 */
export async function runHoldout(
  check: ConfiguredCheck,
  where: { cwd: string; root: string },
  sandbox: SandboxPolicy | null,
  signal?: AbortSignal,
): Promise<CheckRun> {
  const { cwd, root } = where;
  const source = check.holdout!;
  const paths = batonPaths(cwd);
  const target = paths.holdoutRun(check.name);
  if (!present(source)) {
    return {
      name: check.name,
      command: check.run,
      ok: false,
      exitCode: null,
      durationMs: 0,
      reason: `its holdout folder ${source} does not exist on this machine`,
      tail: [],
    };
  }
  rmSync(target, { recursive: true, force: true });
  mkdirSync(dirname(target), { recursive: true });
  cpSync(source, target, { recursive: true });
  try {
    const run = await runOneCheck(check, cwd, { BATON_HOLDOUT_DIR: target }, sandbox, signal);
    // Kept by the repository's name, whichever tree (the verdict tree, a clean checkout) the check ran in.
    const log = holdoutLogPath(root, check.name);
    mkdirSync(dirname(log), { recursive: true });
    writeFileSync(log, `${run.tail.join("\n")}\n`);
    return { ...run, tail: [`(a holdout check: its output is in ${log}, out of the agent's reach)`] };
  } finally {
    rmSync(target, { recursive: true, force: true });
  }
}
