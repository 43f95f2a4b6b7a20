// side doors: a hook starts on every tool call; the state barrel would bring the store's writers and zod.
import { join, relative } from "node:path";
import { METADATA_FILE } from "../shared/baton-paths.js";
import { AGENT_RETURN, isOperation } from "../shared/operation-names.js";
import type { OpenCheckpoint } from "../state/open-checkpoint.js";
import { allow, block, type Decision } from "./decision.js";
import type { StopHookInput } from "./hook-input-schema.js";
import { delegationsOf, type Project, readJsonFile, taskFolders } from "./project.js";
import { forgedLastWords } from "./stop-witness.js";

/** Blocks of one sub-agent's stop before it is let go (Claude Code itself overrides the 9th). */
export const LOOP_GUARD_LIMIT = 3;
const METADATA = METADATA_FILE;

function metadataProblem(path: string): string | null {
  const value = readJsonFile(path);
  if (value === undefined) return "missing or not valid JSON";
  if (typeof value !== "object" || value === null || Array.isArray(value)) return "not a JSON object";
  const status = (value as { status?: unknown }).status;
  if (typeof status !== "string" || status === "") return "without a status";
  if (status === "in_progress") return 'still at status "in_progress"';
  return null;
}

function expectedShape(checkpoint: OpenCheckpoint, folder: string): string {
  // A checkpoint names its operation as a string: one Baton does not know is shown research's shape.
  const expected = AGENT_RETURN[isOperation(checkpoint.operation) ? checkpoint.operation : "research"];
  return JSON.stringify({
    status: expected.status,
    summary: "<one paragraph: what you did and found>",
    artifacts: [{ type: expected.artifact, path: `${folder}/<the file you wrote>`, summary: "…" }],
    metadata: { session_id: checkpoint.sessionId, agent_type: checkpoint.agent },
  });
}

/**
 * SubagentStop answers for the stopping agent's own delegation only (bound by its id at SubagentStart,
 * or by the session its prompt names), so two checkpoints in one session never cross. The agent may
 * stop once its return metadata is written; the count of blocks lives in Baton's delegation log, so
 * deleting the task folder's marker releases nothing. Every stop is recorded with the agent's last
 * words, which GATE OUT reads for TASK_ERROR.
 */
export async function subagentStop(input: StopHookInput, project: Project): Promise<Decision> {
  if (delegationsOf(project, input.session_id).length === 0) return allow();
  const { delegationOfAgent, recordStop } = await import("./provenance.js");
  const found = delegationOfAgent(input, project);
  if (!found) return allow();
  const { checkpoint, view } = found;
  const task = checkpoint.taskNumber;
  const forged = forgedLastWords(input);
  if (forged !== null) {
    // Not the host's stop: nothing of it is recorded, and the hook log keeps the attempt.
    return { ...allow("forged stop refused", task), reason: forged };
  }
  const folder = taskFolders(project, task)[0];
  const metadataPath = folder ? join(folder, METADATA) : undefined;
  const problem = metadataPath ? metadataProblem(metadataPath) : "missing or not valid JSON";
  if (problem === null) {
    recordStop(project, checkpoint, input, false);
    return allow(undefined, task);
  }
  const count = input.stop_hook_active === true ? view.stopBlocks : 0;
  if (input.stop_hook_active === true && count >= LOOP_GUARD_LIMIT) {
    recordStop(project, checkpoint, input, false);
    return { ...allow("loop guard", task), reason: `metadata ${problem} after ${count} blocks` };
  }
  recordStop(project, checkpoint, input, true);
  const shownFolder = folder
    ? relative(project.root, folder)
    : `${relative(project.root, project.specsDir)}/${task}_<slug>`;
  const shown = metadataPath ? relative(project.root, metadataPath) : `${shownFolder}/${METADATA}`;
  return block(
    `Write your return metadata to ${shown} before you stop (it is ${problem}): ${expectedShape(checkpoint, shownFolder)}`,
    task,
    `block ${count + 1}/${LOOP_GUARD_LIMIT}`,
  );
}

/** SubagentStart: binds the starting sub-agent to the delegation whose prompt it was launched with. */
export async function subagentStart(input: StopHookInput, project: Project): Promise<Decision> {
  if (delegationsOf(project, input.session_id).length === 0) return allow();
  const { bindStartedAgent } = await import("./provenance.js");
  const task = bindStartedAgent(input, project);
  return task === undefined ? allow() : allow("bound sub-agent", task);
}
