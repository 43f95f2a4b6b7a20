import { bindCheckpoint } from "./bind.js";
import { allow, block, type Decision } from "./decision.js";
import type { ToolHookInput } from "./hook-input-schema.js";
import { editedPath } from "./pre-tool-use.js";
import { batonCommand, listCheckpoints, type Project } from "./project.js";
import { absolutePath, classifyPath } from "./protected-paths.js";
import { guardSeal } from "./seal-guard.js";
import { EDIT_TOOLS } from "./tool-names.js";

const STORE_FILE_IN_COMMAND = /state\.json|TODO\.md|errors\.json/;
const STORE_KINDS = new Set(["state", "todo", "archive", "errors"]);
const SESSION_LINE = /^BATON_SESSION:[ \t]*(sess_[A-Za-z0-9_-]+)[ \t]*$/m;

function bashStdout(response: unknown): string {
  if (typeof response === "string") return response;
  if (typeof response === "object" && response !== null) {
    const stdout = (response as { stdout?: unknown }).stdout;
    if (typeof stdout === "string") return stdout;
  }
  return "";
}

/** Whether the call may have changed a store file: a sealed one, errors.json (not sealed), or none. */
function touchedStore(input: ToolHookInput, project: Project): "sealed" | "errors" | null {
  if (EDIT_TOOLS.has(input.tool_name)) {
    const path = editedPath(input);
    if (path === undefined) return null;
    const file = classifyPath(absolutePath(path, input.cwd, project), project);
    if (file === null || !STORE_KINDS.has(file.kind)) return null;
    return file.kind === "errors" ? "errors" : "sealed";
  }
  const command = input.tool_input["command"];
  if (input.tool_name !== "Bash" || typeof command !== "string") return null;
  if (/errors\.json/.test(command)) return "errors";
  return STORE_FILE_IN_COMMAND.test(command) ? "sealed" : null;
}

/** `baton gate-in` run through Bash prints `BATON_SESSION: sess_…`: the session that ran it owns it. */
async function bindSession(input: ToolHookInput, project: Project): Promise<number | undefined> {
  const command = input.tool_input["command"];
  if (input.tool_name !== "Bash" || typeof command !== "string" || !command.includes("gate-in")) return;
  const batonSession = SESSION_LINE.exec(bashStdout(input.tool_response))?.[1];
  return batonSession ? bindCheckpoint(project, batonSession, input.session_id) : undefined;
}

/**
 * PostToolUse: binds a gate-in's checkpoint to this session, records who changed which file of an open
 * task folder, and blocks when a store file no longer validates.
 */
export async function postToolUse(input: ToolHookInput, project: Project): Promise<Decision> {
  const bound = await bindSession(input, project);
  await observe(input, project);
  const seal = await guardSeal(project);
  if (seal.restored) return block(seal.restored, bound, "store restored");
  // Sealed files as Baton wrote them validate as they did then; errors.json is not sealed.
  const touched = touchedStore(input, project);
  if (touched === "errors" || (touched === "sealed" && !seal.intact)) {
    const { storeProblems } = await import("./validate-store.js");
    const problems = await storeProblems(project.root);
    if (problems.length > 0) {
      const more = problems.length > 3 ? ` (and ${problems.length - 3} more)` : "";
      return block(
        `Baton's task store no longer validates after this ${input.tool_name} call: ${problems.slice(0, 3).join("; ")}${more}. Run \`${batonCommand(project)} doctor\` to see every problem and \`${batonCommand(project)} doctor --fix\` for the safe repairs; change tasks only through baton commands.`,
        bound,
      );
    }
  }
  return bound === undefined ? allow() : allow("bound claude session", bound);
}

/**
 * PostToolUseFailure: a command that failed may still have written; its changes are recorded, and a
 * store it changed is restored, all the same.
 */
export async function postToolUseFailure(input: ToolHookInput, project: Project): Promise<Decision> {
  await observe(input, project);
  const { restored } = await guardSeal(project);
  return restored ? block(restored, undefined, "store restored") : allow();
}

/**
 * Provenance is recorded only while an in-session checkpoint is open; otherwise its module is not loaded. So
 * is a weakening of the hosts' settings after this call: the log keeps it even if the settings are put back
 * before gate-out (a sandbox turned off for one command is enough to read the key).
 */
async function observe(input: ToolHookInput, project: Project): Promise<void> {
  if (!listCheckpoints(project).some((c) => c.checkpoint.mode === "session")) return;
  const { observeToolCall, recordWeakening } = await import("./provenance.js");
  observeToolCall(input, project);
  const { observeWorkTree } = await import("./work-provenance.js");
  await observeWorkTree(input, project);
  const { weakenedSettings } = await import("./settings-guard.js");
  const weakened = weakenedSettings(project);
  if (weakened.length > 0) recordWeakening(input, project, weakened);
}
