import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { batonPaths } from "../shared/baton-paths.js";
import { allow, block, type Decision } from "./decision.js";
import type { StopHookInput } from "./hook-input-schema.js";
import { ensureBatonDir } from "./log.js";
import { batonCommand, listCheckpoints, type Project } from "./project.js";
import { boundAgentReturned, closeForTheModel } from "./stop-gate-out.js";

/**
 * Consecutive Stop blocks per Claude session before Baton lets the turn end. Claude Code overrides
 * the 9th block itself and then ends with an empty result; stopping earlier keeps the final answer.
 */
export const STOP_BLOCK_LIMIT = 5;

export function stopCounterPath(root: string, claudeSessionId: string): string {
  return batonPaths(root).stopBlocks(claudeSessionId);
}

function readCount(path: string): number {
  try {
    const count = (JSON.parse(readFileSync(path, "utf8")) as { count?: unknown }).count;
    return typeof count === "number" ? count : 0;
  } catch {
    return 0;
  }
}

/**
 * Stop: the main agent may not end its turn while a checkpoint it opened is still open. When the checkpoint's
 * agent has returned, Baton closes it itself (the same GATE OUT, outside any sandbox) rather than depend on
 * the model typing the one command that reaches it; otherwise the stop is held with that command.
 */
export async function stop(input: StopHookInput, project: Project): Promise<Decision> {
  const counter = stopCounterPath(project.root, input.session_id);
  const open = listCheckpoints(project).find(
    ({ checkpoint: c }) => c.mode === "session" && c.claudeSessionId === input.session_id,
  );
  if (!open) {
    rmSync(counter, { force: true });
    return allow();
  }
  const { taskNumber: n, operation, sessionId } = open.checkpoint;
  // A background agent is still working: its notification starts a new turn, gate-out comes then.
  if (input.background_tasks?.some((t) => t.status === "running")) {
    return allow("background agent running", n);
  }
  if (boundAgentReturned(project, open)) {
    rmSync(counter, { force: true });
    const said = await closeForTheModel(project, open);
    return { ...allow("gate-out run by the stop hook", n), reason: said, reply: { systemMessage: said } };
  }
  const count = input.stop_hook_active === true ? readCount(counter) : 0;
  if (count >= STOP_BLOCK_LIMIT) {
    rmSync(counter, { force: true });
    return { ...allow("stop cap", n), reason: `task ${n} still open after ${count} blocks` };
  }
  ensureBatonDir(project.root, "state");
  writeFileSync(counter, JSON.stringify({ count: count + 1, task: n, session: sessionId }));
  return block(
    `Task ${n}'s ${operation} is still open: run \`${batonCommand(project)} gate-out ${operation} ${n} --session ${sessionId}\` now (it verifies the agent's result and commits)`,
    n,
    `block ${count + 1}/${STOP_BLOCK_LIMIT}`,
  );
}
