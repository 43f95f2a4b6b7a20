import { isAbsolute, relative } from "node:path";
// side door: a hook runs per tool call; session-registry.ts loads no installer, lint rule or agent reader
import { hookSession } from "../hosts/session-registry.js";
import { findBashWrite } from "./bash-writes.js";
import { bindCheckpoint } from "./bind.js";
import { allow, type Decision, deny, updateInput } from "./decision.js";
import { hostImpersonation } from "./hook-impersonation.js";
import type { ToolHookInput } from "./hook-input-schema.js";
import {
  batonCommand,
  type CheckpointFile,
  delegationsOf,
  type Project,
  readMarker,
  taskFolders,
} from "./project.js";
import { absolutePath, classifyPath, denyReason } from "./protected-paths.js";
import { personOnlyCommand } from "./refuse-person-commands.js";
import { weakenedSettings } from "./settings-guard.js";
import { DELEGATION_TOOLS, EDIT_TOOLS } from "./tool-names.js";

export function editedPath(input: ToolHookInput): string | undefined {
  const path = input.tool_input["file_path"] ?? input.tool_input["notebook_path"];
  return typeof path === "string" && path !== "" ? path : undefined;
}

/** The agent a delegation names, from its postflight marker. */
function delegatedAgent(project: Project, open: CheckpointFile): string | undefined {
  for (const folder of taskFolders(project, open.checkpoint.taskNumber)) {
    const skill = readMarker(folder)?.marker.skill;
    if (typeof skill === "string" && skill !== "") return skill;
  }
  return undefined;
}

/**
 * PreToolUse. Rule 1, for every agent: Baton's files are written only by Baton. Rule 2: while this
 * session has a delegation open, the main thread does not do the delegated work itself. Rule 3: the
 * delegated agent runs in the foreground, so its report comes back into this session's turn.
 */
export function preToolUse(input: ToolHookInput, project: Project): Decision | Promise<Decision> {
  const tool = input.tool_name;
  if (EDIT_TOOLS.has(tool)) {
    const written = editedPath(input);
    if (written === undefined) return allow();
    const absolute = absolutePath(written, input.cwd, project);
    const file = classifyPath(absolute, project);
    if (file) return deny(denyReason(file, `${tool} of`));
    if (input.agent_id !== undefined) return allow();
    const rel = relative(project.specsDir, absolute);
    if (!rel.startsWith("..") && !isAbsolute(rel)) return allow();
    const open = delegationsOf(project, input.session_id)[0];
    if (!open) return allow();
    const { taskNumber: n, operation, sessionId } = open.checkpoint;
    const agent = delegatedAgent(project, open);
    return deny(
      `Task ${n}'s ${operation} is delegated to agent ${agent ?? "(named by `baton gate-in`)"}; ${hookSession(input.baton_host).delegationCall(agent)} instead of editing files yourself. When it returns, run \`${batonCommand(project)} gate-out ${operation} ${n} --session ${sessionId}\`.`,
      n,
    );
  }
  if (tool === "Bash") {
    const command = input.tool_input["command"];
    if (typeof command !== "string") return allow();
    const impersonation = hostImpersonation(command);
    if (impersonation !== null) return deny(impersonation);
    const personOnly = personOnlyCommand(command, batonCommand(project));
    if (personOnly !== null) return deny(personOnly);
    const weakened = weakenedSettings(project);
    if (weakened.length > 0) {
      return deny(
        `Refused: no command runs while Claude Code's settings are weaker than baton init left them (${weakened.join("; ")}): the sandbox and Baton's hooks are what keep the store, git and the key out of reach. Ask the person to restore them (\`baton init\` puts Baton's back).`,
      );
    }
    const hit = findBashWrite(command, input.cwd, project);
    return hit ? deny(denyReason(hit.file, hit.action)) : allow();
  }
  if (DELEGATION_TOOLS.has(tool)) return agentCall(input, project);
  return allow();
}

/**
 * Rule 3, and the last chance to learn whose delegation it is: a main-thread call of the agent an
 * unbound checkpoint names binds it to this session (gate-in from a slash command's `!` line is
 * no tool call, so the post-tool-use binding never sees it).
 */
async function agentCall(input: ToolHookInput, project: Project): Promise<Decision> {
  const open = delegationsOf(project, input.session_id);
  if (open.length === 0) return allow();
  let bound: number | undefined;
  let bindingPrompt: string | undefined;
  const target = input.tool_input["subagent_type"];
  if (input.agent_id === undefined) {
    const { recordLaunch } = await import("./provenance.js");
    const launched = recordLaunch(input, project);
    if (launched && !launched.accepted) {
      const { taskNumber: n, operation, agent: named } = launched.open.checkpoint;
      return deny(
        `Task ${n}'s ${operation} is delegated to agent ${named}: ${hookSession(input.baton_host).delegationCall(named)} and the prompt \`baton gate-in\` printed; a ${String(target)} agent's work would be refused at gate-out.`,
        n,
      );
    }
    bindingPrompt = launched?.bindingPrompt;
    if (launched && bindingPrompt !== undefined) bound = launched.open.checkpoint.taskNumber;
  }
  if (input.agent_id === undefined && typeof target === "string") {
    const unbound = open.find(
      (d) => d.checkpoint.claudeSessionId === undefined && delegatedAgent(project, d) === target,
    );
    if (unbound) bound = await bindCheckpoint(project, unbound.checkpoint.sessionId, input.session_id);
  }
  const task = bound ?? open[0]!.checkpoint.taskNumber;
  if (input.tool_input["run_in_background"] === false && bindingPrompt === undefined) {
    return bound === undefined ? allow() : allow("bound claude session", bound);
  }
  return delegationRewrite(input, task, bindingPrompt, bound !== undefined);
}

/**
 * The delegation call as Baton runs it: in the foreground, so its result returns to this turn, and with
 * gate-in's prompt added when the model's prompt left out the session it delegates.
 */
function delegationRewrite(
  input: ToolHookInput,
  task: number,
  bindingPrompt: string | undefined,
  bound: boolean,
): Decision {
  const prompt = input.tool_input["prompt"];
  const updated: Record<string, unknown> = { ...input.tool_input, run_in_background: false };
  if (bindingPrompt !== undefined) updated["prompt"] = `${String(prompt)}\n\n${bindingPrompt}`;
  const reason =
    bindingPrompt === undefined
      ? `Baton runs task ${task}'s agent in the foreground, so its result returns to this turn`
      : `Baton added task ${task}'s delegation (the prompt \`baton gate-in\` printed) to the agent's prompt and runs it in the foreground`;
  return { ...updateInput(updated, reason, task), ...(bound ? { note: "bound claude session" } : {}) };
}
