// Baton's opencode plugin, installed by `baton init --host opencode` (removed by `baton init --uninstall`). It
// turns opencode's plugin calls into Claude Code's hook inputs and asks Baton's same decisions: the repository's
// resident hook server (started through SessionStart, ending with opencode), else `baton hook <event>` in a
// process, so no call passes undecided. tool.execute.before → pre-tool-use (a throw blocks the tool),
// tool.execute.after → post-tool-use (provenance), a task's result → subagent-stop (a throw refuses it until the
// metadata exists), a child's first prompt → subagent-start, root session idle → stop (closes or re-prompts an
// open checkpoint; `opencode run` exits at the first idle). opencode calls every export as a plugin: one export.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const BATON = "__BATON_BIN__";
/** The repository's hook server (`baton init` writes it in; null: none, every call runs `baton hook`). */
const SERVER = "__BATON_SERVER__";
// Baton's stop hook caps its own blocks; this bounds the re-prompts should a reply ever be lost.
const MAX_IDLE_REPROMPTS = 6;

/** `baton hook <event>` → the `hook_event_name` Claude Code would send with it. */
const EVENT_NAMES = {
  "pre-tool-use": "PreToolUse",
  "post-tool-use": "PostToolUse",
  stop: "Stop",
  "subagent-start": "SubagentStart",
  "subagent-stop": "SubagentStop",
};

/** opencode tool → the tool name and input Baton's hooks read (Claude Code's names). */
const CALLS = {
  write: (a) => ["Write", { file_path: a.filePath, content: a.content }],
  edit: (a) => ["Edit", { file_path: a.filePath, old_string: a.oldString, new_string: a.newString }],
  multiedit: (a) => ["MultiEdit", { file_path: a.filePath, edits: a.edits }],
  bash: (a) => ["Bash", { command: a.command }],
  task: (a) => [
    "Agent",
    {
      subagent_type: a.subagent_type,
      description: a.description,
      prompt: a.prompt,
      run_in_background: false,
    },
  ],
};

function claudeCall(tool, args) {
  const [tool_name, tool_input] = CALLS[tool]?.(args ?? {}) ?? [tool, args ?? {}];
  return { tool_name, tool_input };
}

/** Every file a patch names (`*** Add File: p`, `*** Update File: p`, `*** Delete File: p`, `*** Move to: p`). */
function patchedFiles(args) {
  const text = typeof args?.patchText === "string" ? args.patchText : "";
  return [...text.matchAll(/^\*\*\* (?:Add File|Update File|Delete File|Move to): (.+)$/gm)].map((m) =>
    m[1].trim(),
  );
}

/**
 * Where the repository's hook server answers: the HTTP hooks' fixed port, or the one the resident server
 * published in `.baton/serve.port`; null when none is known.
 */
function serverUrl(directory) {
  if (SERVER) return SERVER;
  try {
    const port = readFileSync(join(directory, ".baton", "serve.port"), "utf8").trim();
    return /^\d+$/.test(port) ? `http://127.0.0.1:${port}` : null;
  } catch {
    return null;
  }
}

/** The decision from the resident server, or null when it cannot give one (down, or not Baton's). */
async function askServer(directory, event, body) {
  const server = serverUrl(directory);
  if (!server) return null;
  try {
    const response = await fetch(`${server}/hooks/${event}`, {
      method: "POST",
      body,
      signal: AbortSignal.timeout(10_000),
    });
    if (response.status !== 200 || response.headers.get("x-baton-hook") !== "1") return null;
    return { reply: await response.json() };
  } catch {
    return null;
  }
}

let serverStarted = false;
/**
 * Starts the repository's hook server once, for the calls after this one, through Baton's SessionStart hook:
 * this opencode process is recorded as a live session, and the server ends when the last one has ended.
 */
function startServer(directory) {
  if (serverStarted) return;
  serverStarted = true;
  try {
    const port = SERVER ? ` --port ${new URL(SERVER).port}` : "";
    const child = spawn("/bin/sh", ["-c", `exec ${BATON} hook session-start${port}`], {
      cwd: directory,
      env: { ...process.env, CLAUDE_PROJECT_DIR: directory, BATON_HOST_PID: String(process.pid) },
      stdio: ["pipe", "ignore", "ignore"],
    });
    child.on("error", () => {});
    child.stdin.on("error", () => {});
    child.stdin.end(
      JSON.stringify({
        session_id: `opencode-${process.pid}`,
        cwd: directory,
        hook_event_name: "SessionStart",
        baton_host: "opencode",
      }),
    );
  } catch {
    // the process path below still decides every call
  }
}

/** `baton hook <event>` in a process: the slow path, and the one that needs nothing running. */
function askProcess(directory, event, body) {
  return new Promise((resolve) => {
    let out = "";
    let err = "";
    let child;
    try {
      child = spawn("/bin/sh", ["-c", `${BATON} hook ${event}`], {
        cwd: directory,
        env: { ...process.env, CLAUDE_PROJECT_DIR: directory },
        stdio: ["pipe", "pipe", "pipe"],
      });
    } catch (error) {
      resolve({ failed: String(error) });
      return;
    }
    child.stdout.on("data", (chunk) => (out += chunk));
    child.stderr.on("data", (chunk) => (err += chunk));
    child.on("error", (error) => resolve({ failed: String(error) }));
    child.on("close", (code) => {
      try {
        resolve({ reply: JSON.parse(out) });
      } catch {
        resolve({
          failed: `\`${BATON} hook ${event}\` exited ${code}: ${(err || out).trim().slice(0, 400)}`,
        });
      }
    });
    child.stdin.on("error", () => {});
    child.stdin.end(body);
  });
}

/** Baton's reply to one hook event: from the server when it answers, else from a process. */
async function ask(directory, event, input) {
  const body = JSON.stringify({
    ...input,
    cwd: directory,
    hook_event_name: EVENT_NAMES[event],
    baton_host: "opencode",
  });
  const served = await askServer(directory, event, body);
  if (served) return served;
  startServer(directory);
  return askProcess(directory, event, body);
}

/** What the plugin remembers of one opencode server: who is whose parent, and the sub-agents' names. */
function newState(client, directory) {
  const [parents, agents, refusals, reprompts] = [new Map(), new Map(), new Map(), new Map()];
  return { client, directory, parents, agents, refusals, reprompts };
}

async function parentOf(state, sessionID) {
  if (state.parents.has(sessionID)) return state.parents.get(sessionID);
  try {
    const found = await state.client.session.get({ path: { id: sessionID } });
    state.parents.set(sessionID, found.data?.parentID ?? null);
  } catch {
    return null;
  }
  return state.parents.get(sessionID);
}

/** Who is calling: the root session, and for a sub-agent its own session id and agent name. */
async function caller(state, sessionID) {
  let root = sessionID;
  for (let parent = await parentOf(state, root); parent; parent = await parentOf(state, root)) root = parent;
  if (root === sessionID) return { session_id: sessionID };
  const agent = state.agents.get(sessionID);
  return { session_id: root, agent_id: sessionID, ...(agent ? { agent_type: agent } : {}) };
}

async function guard(state, input, output) {
  const who = await caller(state, input.sessionID);
  const calls =
    input.tool === "apply_patch" || input.tool === "patch"
      ? patchedFiles(output.args).map((file) => ({ tool_name: "Write", tool_input: { file_path: file } }))
      : [claudeCall(input.tool, output.args)];
  for (const call of calls) {
    const answer = await ask(state.directory, "pre-tool-use", { ...who, ...call });
    if (answer.failed) {
      throw new Error(`Baton's hook could not run, so this ${input.tool} call is refused: ${answer.failed}`);
    }
    const specific = answer.reply.hookSpecificOutput;
    if (specific?.permissionDecision === "deny") throw new Error(specific.permissionDecisionReason);
    // Baton adds the delegation's prompt to a task call whose prompt leaves out the session it delegates.
    const updated = specific?.updatedInput;
    if (input.tool === "task" && typeof updated?.prompt === "string") output.args.prompt = updated.prompt;
  }
}

/** A sub-agent's result reaches its parent only once Baton's subagent-stop lets the agent go. */
async function checkResult(state, input, output) {
  const child = output.metadata?.sessionId;
  if (typeof child !== "string") return;
  const who = await caller(state, input.sessionID);
  const blocked = state.refusals.get(child) ?? 0;
  const agent = state.agents.get(child) ?? input.args?.subagent_type;
  const answer = await ask(state.directory, "subagent-stop", {
    session_id: who.session_id,
    agent_id: child,
    ...(agent ? { agent_type: agent } : {}),
    stop_hook_active: blocked > 0,
    last_assistant_message: typeof output.output === "string" ? output.output : "",
  });
  if (answer.failed || answer.reply.decision !== "block") {
    state.refusals.delete(child);
    return;
  }
  state.refusals.set(child, blocked + 1);
  throw new Error(
    `Baton refused agent ${agent ?? "(sub-agent)"}'s result: ${answer.reply.reason}\n` +
      `Call the task tool again with task_id "${child}", subagent_type "${agent}" and this message as the prompt, so the same agent finishes its work.`,
  );
}

async function firstPrompt(state, input, output) {
  if (state.agents.has(input.sessionID) || !input.agent) return;
  if (!(await parentOf(state, input.sessionID))) return;
  state.agents.set(input.sessionID, input.agent);
  const text = (output.parts ?? [])
    .filter((part) => part.type === "text")
    .map((part) => part.text)
    .join("\n");
  // Baton binds a sub-agent by the checkpoint session its prompt names, read from a transcript file.
  let folder;
  try {
    folder = mkdtempSync(join(tmpdir(), "baton-opencode-"));
    const path = join(folder, "prompt.txt");
    writeFileSync(path, text);
    const who = await caller(state, input.sessionID);
    await ask(state.directory, "subagent-start", { ...who, agent_transcript_path: path });
  } catch {
    // Unbound, the sub-agent's result is not held back here; GATE OUT still refuses it without metadata.
  } finally {
    if (folder) rmSync(folder, { recursive: true, force: true });
  }
}

async function idle(state, sessionID) {
  if (await parentOf(state, sessionID)) return;
  const count = state.reprompts.get(sessionID) ?? 0;
  const answer = await ask(state.directory, "stop", { session_id: sessionID, stop_hook_active: count > 0 });
  if (answer.failed || answer.reply.decision !== "block" || count >= MAX_IDLE_REPROMPTS) {
    state.reprompts.delete(sessionID);
    return;
  }
  state.reprompts.set(sessionID, count + 1);
  try {
    await state.client.session.promptAsync({
      path: { id: sessionID },
      body: { parts: [{ type: "text", text: `Baton: ${answer.reply.reason}` }] },
    });
  } catch {
    // The server is going away (`opencode run` ends at the first idle): GATE OUT judges the result.
  }
}

export const BatonPlugin = async ({ client, directory }) => {
  const state = newState(client, directory);
  return {
    event: async ({ event }) => {
      const info = event.properties?.info;
      if ((event.type === "session.created" || event.type === "session.updated") && info?.id) {
        state.parents.set(info.id, info.parentID ?? null);
      }
      if (event.type === "session.idle") await idle(state, event.properties.sessionID);
    },
    "chat.message": (input, output) => firstPrompt(state, input, output),
    "tool.execute.before": (input, output) => guard(state, input, output),
    "tool.execute.after": async (input, output) => {
      if (input.tool === "task") await checkResult(state, input, output);
      const who = await caller(state, input.sessionID);
      await ask(directory, "post-tool-use", {
        ...who,
        ...claudeCall(input.tool, input.args),
        tool_response: {},
      });
    },
  };
};
