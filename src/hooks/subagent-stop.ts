import { rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { allow, block, type Decision } from "./decision.js";
import {
  LOOP_GUARD,
  type MarkerFile,
  type OpenMarker,
  openMarkers,
  type Project,
  readJsonFile,
} from "./project.js";
import type { StopHookInput } from "./schema.js";

/** Blocks of one sub-agent's stop before it is let go (Claude Code itself overrides the 9th). */
export const LOOP_GUARD_LIMIT = 3;
const METADATA = ".return-meta.json";

const RESULT_STATUS: Record<string, string> = {
  research: "researched",
  plan: "planned",
  revise: "planned",
  implement: "implemented",
};
const ARTIFACT_TYPE: Record<string, string> = {
  research: "research",
  plan: "plan",
  revise: "plan",
  implement: "summary",
};

/**
 * The marker this sub-agent answers for: bound markers match on the Claude session (another
 * session's delegation is never this agent's business), unbound ones on the agent's name. A bound
 * marker that names a different agent is not matched either: an Explore agent the main thread
 * starts alongside must not be told to write the researcher's metadata.
 */
function markerOf(input: StopHookInput, project: Project): OpenMarker | undefined {
  return openMarkers(project).find(({ marker }) => {
    const sameAgent = !marker.skill || !input.agent_type || marker.skill === input.agent_type;
    if (marker.claude_session_id) return marker.claude_session_id === input.session_id && sameAgent;
    return marker.skill !== undefined && marker.skill === input.agent_type;
  });
}

function metadataProblem(path: string): string | null {
  const value = readJsonFile(path);
  if (value === undefined) return "missing or not valid JSON";
  if (typeof value !== "object" || value === null || Array.isArray(value)) return "not a JSON object";
  const status = (value as { status?: unknown }).status;
  if (typeof status !== "string" || status === "") return "without a status";
  if (status === "in_progress") return 'still at status "in_progress"';
  return null;
}

function readGuard(path: string): { count: number; session?: string } {
  const value = readJsonFile(path);
  // The original system wrote a bare number.
  if (typeof value === "number") return { count: value };
  if (typeof value === "object" && value !== null) {
    const { count, session } = value as { count?: unknown; session?: unknown };
    return {
      count: typeof count === "number" ? count : 0,
      ...(typeof session === "string" ? { session } : {}),
    };
  }
  return { count: 0 };
}

function expectedShape(found: MarkerFile, root: string): string {
  const operation = found.marker.operation ?? "research";
  const folder = relative(root, found.folder);
  return JSON.stringify({
    status: RESULT_STATUS[operation] ?? "researched",
    summary: "<one paragraph: what you did and found>",
    artifacts: [
      { type: ARTIFACT_TYPE[operation] ?? "research", path: `${folder}/<the file you wrote>`, summary: "…" },
    ],
    metadata: {
      session_id: found.marker.session_id ?? "<session id from your prompt>",
      agent_type: found.marker.skill,
    },
  });
}

/** SubagentStop: the delegated agent may stop only once its return metadata is written. */
export function subagentStop(input: StopHookInput, project: Project): Decision {
  const found = markerOf(input, project);
  if (!found) return allow();
  const task = found.checkpoint.taskNumber;
  const metadataPath = join(found.folder, METADATA);
  const guardPath = join(found.folder, LOOP_GUARD);
  const problem = metadataProblem(metadataPath);
  if (problem === null) {
    rmSync(guardPath, { force: true });
    return allow(undefined, task);
  }
  const guard = readGuard(guardPath);
  const active = input.stop_hook_active === true;
  const count =
    active && (guard.session === undefined || guard.session === input.session_id) ? guard.count : 0;
  if (active && count >= LOOP_GUARD_LIMIT) {
    rmSync(guardPath, { force: true });
    return { ...allow("loop guard", task), reason: `metadata ${problem} after ${count} blocks` };
  }
  writeFileSync(guardPath, JSON.stringify({ count: count + 1, session: input.session_id }));
  const shown = relative(project.root, metadataPath);
  return block(
    `Write your return metadata to ${shown} before you stop (it is ${problem}): ${expectedShape(found, project.root)}`,
    task,
    `block ${count + 1}/${LOOP_GUARD_LIMIT}`,
  );
}
