import { closeSync, openSync, readSync } from "node:fs";
import { join } from "node:path";
import {
  appendDelegationEvents,
  type DelegationView,
  observeFolders,
  readDelegation,
} from "../state/delegation-log.js";
import type { OpenCheckpoint } from "../state/open-checkpoint.js";
import { type CheckpointFile, delegationsOf, listCheckpoints, type Project, taskFolders } from "./project.js";
import type { StopHookInput, ToolHookInput } from "./schema.js";

/**
 * The hooks' half of provenance: which sub-agent works for which in-session checkpoint, and who
 * changed which file of an open task folder. What they learn is appended to the checkpoint's
 * delegation log (state/delegation-log.ts); in-session GATE OUT reads it.
 */
const internalDir = (project: Project) => join(project.specsDir, ".baton");
const SESSION_ID = /sess_\d+_[0-9A-Za-z]+/g;

export interface Delegation {
  checkpoint: OpenCheckpoint;
  view: DelegationView;
}

/** The agent a checkpoint delegates to (recorded at GATE IN). */
export function delegatedAgentOf(checkpoint: OpenCheckpoint): string | undefined {
  return checkpoint.agent;
}

/**
 * PreToolUse of the Agent tool on the main thread: a prompt carrying a checkpoint's session launches that
 * delegation — when it calls the agent Baton named; a call of another agent is reported, not recorded.
 */
export function recordLaunch(
  input: ToolHookInput,
  project: Project,
): { open: CheckpointFile; accepted: boolean } | undefined {
  const prompt = input.tool_input["prompt"];
  const type = input.tool_input["subagent_type"];
  if (typeof prompt !== "string" || typeof type !== "string") return undefined;
  const ids = new Set(prompt.match(SESSION_ID) ?? []);
  const open = delegationsOf(project, input.session_id).find((d) => ids.has(d.checkpoint.sessionId));
  if (!open) return undefined;
  const named = open.checkpoint.agent;
  if (named !== undefined && named !== type) return { open, accepted: false };
  appendDelegationEvents(internalDir(project), open.checkpoint.sessionId, [
    { type: "launch", at: new Date().toISOString(), agentType: type },
  ]);
  return { open, accepted: true };
}

/**
 * SubagentStart: the sub-agent is bound to the oldest launched, unbound delegation of this session that
 * names its type (launches of one type start in the order they were made).
 */
export function bindStartedAgent(input: StopHookInput, project: Project): number | undefined {
  const { agent_id: agentId, agent_type: agentType } = input;
  if (!agentId || !agentType) return undefined;
  const candidates = delegationsOf(project, input.session_id)
    .map((d) => ({
      checkpoint: d.checkpoint,
      view: readDelegation(internalDir(project), d.checkpoint.sessionId),
    }))
    .filter((d) => d.view.agentId === undefined && d.view.launches.includes(agentType))
    .sort((a, b) => (a.view.launchedAt ?? "").localeCompare(b.view.launchedAt ?? ""));
  const chosen = candidates[0];
  if (!chosen) return undefined;
  appendDelegationEvents(internalDir(project), chosen.checkpoint.sessionId, [
    { type: "bind", at: new Date().toISOString(), agentId, agentType, via: "start" },
  ]);
  return chosen.checkpoint.taskNumber;
}

/** The first 64 KiB of a sub-agent's transcript: its prompt, which names Baton's session. */
function transcriptHead(path: string | undefined): string {
  if (!path) return "";
  let fd: number | undefined;
  try {
    fd = openSync(path, "r");
    const buffer = Buffer.alloc(64 * 1024);
    return buffer.toString("utf8", 0, readSync(fd, buffer, 0, buffer.length, 0));
  } catch {
    return "";
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * The delegation this sub-agent works for: the one bound to its id, or — when SubagentStart never
 * bound it (hooks installed before it existed) — the one whose session its transcript's prompt names.
 */
export function delegationOfAgent(input: StopHookInput, project: Project): Delegation | undefined {
  const agentId = input.agent_id;
  if (!agentId) return undefined;
  const open = delegationsOf(project, input.session_id).map((d) => ({
    checkpoint: d.checkpoint,
    view: readDelegation(internalDir(project), d.checkpoint.sessionId),
  }));
  const bound = open.find((d) => d.view.agentId === agentId);
  if (bound) return bound;
  const head = transcriptHead(input["agent_transcript_path"] as string | undefined);
  const named = new Set(head.match(SESSION_ID) ?? []);
  const unbound = open.find((d) => d.view.agentId === undefined && named.has(d.checkpoint.sessionId));
  if (
    !unbound ||
    (input.agent_type && unbound.checkpoint.agent && input.agent_type !== unbound.checkpoint.agent)
  ) {
    return undefined;
  }
  const at = new Date().toISOString();
  appendDelegationEvents(internalDir(project), unbound.checkpoint.sessionId, [
    { type: "bind", at, agentId, agentType: input.agent_type ?? "", via: "transcript" },
  ]);
  return {
    checkpoint: unbound.checkpoint,
    view: readDelegation(internalDir(project), unbound.checkpoint.sessionId),
  };
}

/**
 * PostToolUse and PostToolUseFailure of every tool: each open in-session task folder is looked at, and
 * what changed since the last look is recorded with this call's actor. A failing command's writes
 * count like any other.
 */
export function observeToolCall(input: ToolHookInput, project: Project): void {
  const open = listCheckpoints(project).filter((c) => c.checkpoint.mode === "session");
  if (open.length === 0) return;
  const actor = input.agent_id ? `agent:${input.agent_id}` : "main";
  const at = new Date().toISOString();
  for (const { checkpoint } of open) {
    const folders = taskFolders(project, checkpoint.taskNumber);
    if (folders.length === 0) continue;
    const view = readDelegation(internalDir(project), checkpoint.sessionId);
    const events = observeFolders(project.root, folders, view, actor, input.tool_name, at);
    appendDelegationEvents(internalDir(project), checkpoint.sessionId, events);
  }
}

/** What SubagentStop records: the stop, the agent's last words, and whether it was sent back. */
export function recordStop(
  project: Project,
  checkpoint: OpenCheckpoint,
  input: StopHookInput,
  blocked: boolean,
): void {
  const lastOutput =
    typeof input["last_assistant_message"] === "string" ? (input["last_assistant_message"] as string) : "";
  appendDelegationEvents(internalDir(project), checkpoint.sessionId, [
    { type: "stop", at: new Date().toISOString(), agentId: input.agent_id ?? "", lastOutput, blocked },
  ]);
}

export { listCheckpoints };
