// side doors: a hook starts on every tool call; the state barrel would bring the store's writers and zod.
import { join } from "node:path";
import { BATON_DIR } from "../shared/baton-paths.js";
import { STOP_GATE_OUT_TIMEOUT_S } from "../shared/hook-port.js";
import { runProcess } from "../shared/process.js";
import { readDelegation } from "../state/delegation-log.js";
import type { CheckpointFile, Project } from "./project.js";

/** Whether the agent bound to this delegation has returned: it stopped, and its last stop was let through. */
export function boundAgentReturned(project: Project, open: CheckpointFile): boolean {
  const view = readDelegation(join(project.specsDir, BATON_DIR), open.checkpoint.sessionId);
  return view.agentId !== undefined && view.stopOutput !== undefined && view.stopBlocks === 0;
}

/**
 * GATE OUT run by Baton itself, when the main thread stops with a checkpoint open whose agent has returned:
 * the model was told the one command that closes it, but a form it typed otherwise (`cd … && …`, a `$(…)`)
 * runs inside the host's sandbox, where the store is read-only. The gate is the same command, run outside
 * any sandbox by this hook, so what it verifies and records does not depend on what the model typed.
 * Returns the text the person and the model read.
 */
export async function closeForTheModel(project: Project, open: CheckpointFile): Promise<string> {
  const { taskNumber: n, operation, sessionId } = open.checkpoint;
  const bin = process.argv[1];
  if (!bin)
    return `Task ${n}'s ${operation} is still open; run \`baton gate-out ${operation} ${n} --session ${sessionId}\`.`;
  const run = await runProcess({
    command: process.execPath,
    args: [bin, "gate-out", operation, String(n), "--session", sessionId, "--json"],
    cwd: project.root,
    timeoutMs: STOP_GATE_OUT_TIMEOUT_S * 1000,
  });
  let result: { ok?: unknown; code?: unknown; message?: unknown; status?: unknown } = {};
  try {
    result = JSON.parse(run.stdout) as typeof result;
  } catch {
    // no verdict came back: said below
  }
  if (result.ok === true) {
    return `Baton ran GATE OUT for task ${n}'s ${operation} (its agent had returned): verified, recorded as ${String(result.status)} and committed.`;
  }
  if (typeof result.code === "string") {
    return `Baton ran GATE OUT for task ${n}'s ${operation} (its agent had returned): refused [${result.code}]: ${String(result.message)}. The task stays ${String(result.status)} and can be run again.`;
  }
  const why = run.ok ? run.stdout.trim() : `${run.message} ${run.stderr.trim()}`;
  return `Baton could not run GATE OUT for task ${n}'s ${operation}: ${why.slice(0, 400)}`;
}
