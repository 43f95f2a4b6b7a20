// side doors: a hook starts on every tool call; the state barrel would bring the store's writers and zod.
import { closeSync, openSync, readSync } from "node:fs";
import { join, resolve } from "node:path";
import { BATON_DIR } from "../shared/baton-paths.js";
import {
  appendDelegationEvents,
  type DelegationView,
  observeFolders,
  readDelegation,
} from "../state/delegation-log.js";
import type { OpenCheckpoint } from "../state/open-checkpoint.js";
import type { StopHookInput, ToolHookInput } from "./hook-input-schema.js";
import { type CheckpointFile, delegationsOf, listCheckpoints, type Project, taskFolders } from "./project.js";
import { subagentTranscript } from "./stop-witness.js";
import { DELEGATION_TOOLS, EDIT_TOOLS } from "./tool-names.js";

/**
 * Loaded by the hooks only when an in-session checkpoint is open (the delegation log's schema pulls in
 * zod, which an ordinary tool call should not pay for).
 *
 * The hooks' half of provenance: which sub-agent works for which in-session checkpoint, and who
 * changed which file of an open task folder. What they learn is appended to the checkpoint's
 * delegation log (state/delegation-log.ts); in-session GATE OUT reads it.
 */
const internalDir = (project: Project) => join(project.specsDir, BATON_DIR);
const SESSION_ID = /sess_\d+_[0-9A-Za-z]+/g;

export interface Delegation {
  checkpoint: OpenCheckpoint;
  view: DelegationView;
}

/**
 * PreToolUse of the Agent tool on the main thread: a prompt carrying a checkpoint's session launches that
 * delegation — when it calls the agent Baton named; a call of another agent is reported, not recorded.
 * A prompt naming no open session (the model paraphrased gate-in's prompt) launches this session's oldest
 * delegation to that agent not launched yet, and `bindingPrompt` is gate-in's prompt, which the hook adds
 * to the call: the sub-agent's own transcript then names the session, so SubagentStart binds it.
 */
export function recordLaunch(
  input: ToolHookInput,
  project: Project,
): { open: CheckpointFile; accepted: boolean; bindingPrompt?: string } | undefined {
  const prompt = input.tool_input["prompt"];
  const type = input.tool_input["subagent_type"];
  if (typeof prompt !== "string" || typeof type !== "string") return undefined;
  const ids = new Set(prompt.match(SESSION_ID) ?? []);
  const delegations = delegationsOf(project, input.session_id);
  const named = delegations.find((d) => ids.has(d.checkpoint.sessionId));
  if (named) {
    if (named.checkpoint.agent !== undefined && named.checkpoint.agent !== type)
      return { open: named, accepted: false };
    launch(project, named, type);
    return { open: named, accepted: true };
  }
  const unlaunched = delegations
    .filter((d) => d.checkpoint.agent === type)
    .map((d) => ({ d, view: readDelegation(internalDir(project), d.checkpoint.sessionId) }))
    .filter(({ view }) => view.launchedAt === undefined && view.agentId === undefined && view.prompt)
    .sort((a, b) => a.d.checkpoint.startedAt.localeCompare(b.d.checkpoint.startedAt))[0];
  if (!unlaunched) return undefined;
  launch(project, unlaunched.d, type);
  return { open: unlaunched.d, accepted: true, bindingPrompt: unlaunched.view.prompt! };
}

function launch(project: Project, open: CheckpointFile, agentType: string): void {
  appendDelegationEvents(internalDir(project), open.checkpoint.sessionId, [
    { type: "launch", at: new Date().toISOString(), agentType },
  ]);
}

/**
 * SubagentStart: the sub-agent is bound to the launched, unbound delegation of this session whose
 * session id its transcript's prompt names. Never by order or count: launches of one agent type run in
 * parallel and their hooks race. When the transcript is not written yet, its first tool call or its
 * SubagentStop binds it (bindByTranscript).
 */
export function bindStartedAgent(input: StopHookInput, project: Project): number | undefined {
  return bindByTranscript(input, project)?.checkpoint.taskNumber;
}

/** Binds an unbound sub-agent by the Baton session its own transcript's prompt names. */
export function bindByTranscript(
  input: {
    session_id: string;
    agent_id?: string | undefined;
    agent_type?: string | undefined;
    [key: string]: unknown;
  },
  project: Project,
): Delegation | undefined {
  const agentId = input.agent_id;
  if (!agentId) return undefined;
  const open = delegationsOf(project, input.session_id).map((d) => ({
    checkpoint: d.checkpoint,
    view: readDelegation(internalDir(project), d.checkpoint.sessionId),
  }));
  if (open.some((d) => d.view.agentId === agentId)) return undefined;
  const unbound = open.filter((d) => d.view.agentId === undefined);
  if (unbound.length === 0) return undefined;
  const named = new Set(transcriptHead(subagentTranscript(input)).match(SESSION_ID) ?? []);
  const chosen = unbound.filter((d) => named.has(d.checkpoint.sessionId));
  if (chosen.length !== 1) return undefined;
  const found = chosen[0]!;
  if (input.agent_type && found.checkpoint.agent && input.agent_type !== found.checkpoint.agent)
    return undefined;
  appendDelegationEvents(internalDir(project), found.checkpoint.sessionId, [
    {
      type: "bind",
      at: new Date().toISOString(),
      agentId,
      agentType: input.agent_type ?? "",
      via: "transcript",
    },
  ]);
  return {
    checkpoint: found.checkpoint,
    view: readDelegation(internalDir(project), found.checkpoint.sessionId),
  };
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
  const bound = delegationsOf(project, input.session_id)
    .map((d) => ({
      checkpoint: d.checkpoint,
      view: readDelegation(internalDir(project), d.checkpoint.sessionId),
    }))
    .find((d) => d.view.agentId === agentId);
  return bound ?? bindByTranscript(input, project);
}

/**
 * PostToolUse and PostToolUseFailure of every tool: each open in-session task folder is looked at, and
 * what changed since the last look is recorded with this call's actor. A failing command's writes
 * count like any other.
 */
export function observeToolCall(input: ToolHookInput, project: Project): void {
  // The main thread's Agent call writes nothing itself: it ends when its sub-agent does, while parallel
  // sub-agents may be between a write and their own hook. What changed then is theirs to record.
  if (!input.agent_id && DELEGATION_TOOLS.has(input.tool_name)) return;
  const open = listCheckpoints(project).filter((c) => c.checkpoint.mode === "session");
  if (open.length === 0) return;
  const actor = input.agent_id ? `agent:${input.agent_id}` : "main";
  // A sub-agent's first tool call: its transcript holds its prompt by now.
  if (input.agent_id) bindByTranscript(input, project);
  // An edit tool names the one file it wrote: only that file is this call's. Other changes seen now are
  // another agent's in flight (parallel sub-agents), which their own hook records.
  const edited = EDIT_TOOLS.has(input.tool_name)
    ? (input.tool_input["file_path"] ?? input.tool_input["notebook_path"])
    : undefined;
  const only = typeof edited === "string" ? resolve(input.cwd, edited) : undefined;
  const at = new Date().toISOString();
  for (const { checkpoint } of open) {
    const folders = taskFolders(project, checkpoint.taskNumber);
    if (folders.length === 0) continue;
    const view = readDelegation(internalDir(project), checkpoint.sessionId);
    const events = observeFolders(project.root, folders, view, actor, input.tool_name, at).filter(
      (e) => only === undefined || (e.type === "file" && join(project.root, e.path) === only),
    );
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

/** A weakening of the hosts' settings seen after a tool call, kept in every open session delegation's log. */
export function recordWeakening(input: ToolHookInput, project: Project, weakened: readonly string[]): void {
  const actor = input.agent_id ? `agent:${input.agent_id}` : "main";
  const at = new Date().toISOString();
  for (const { checkpoint } of listCheckpoints(project).filter((c) => c.checkpoint.mode === "session")) {
    appendDelegationEvents(
      internalDir(project),
      checkpoint.sessionId,
      weakened.map((what) => ({ type: "guard" as const, at, tool: input.tool_name, actor, what })),
    );
  }
}
