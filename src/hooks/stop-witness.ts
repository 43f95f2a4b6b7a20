import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { join } from "node:path";

/**
 * A SubagentStop's `last_assistant_message` is the agent's word for how it ended (GATE OUT reads it for
 * TASK_ERROR). Claude Code writes the agent's transcript before it runs the hook, so the message must be
 * the transcript's last assistant text: a stop piped into `baton hook subagent-stop` by the model, to
 * replace an agent's TASK_ERROR with something else, names words the agent never said.
 */
const TAIL_BYTES = 256 * 1024;

/** Where Claude Code keeps a sub-agent's transcript: beside the session's, under `<session>/subagents/`. */
export function subagentTranscript(input: {
  agent_id?: string | undefined;
  [key: string]: unknown;
}): string | undefined {
  const given = input["agent_transcript_path"];
  if (typeof given === "string" && given !== "") return given;
  const main = input["transcript_path"];
  if (typeof main !== "string" || !main.endsWith(".jsonl") || !input.agent_id) return undefined;
  return join(main.slice(0, -".jsonl".length), "subagents", `agent-${input.agent_id}.jsonl`);
}

function tail(path: string): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, "r");
    const size = fstatSync(fd).size;
    const length = Math.min(size, TAIL_BYTES);
    const buffer = Buffer.alloc(length);
    return buffer.toString("utf8", 0, readSync(fd, buffer, 0, length, size - length));
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function assistantText(line: string): string | undefined {
  let entry: { type?: unknown; message?: { role?: unknown; content?: unknown } };
  try {
    entry = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (entry.type !== "assistant" && entry.message?.role !== "assistant") return undefined;
  const content = entry.message?.content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return undefined;
  const texts = content
    .filter((c): c is { type: "text"; text: string } => c?.type === "text" && typeof c.text === "string")
    .map((c) => c.text);
  return texts.length > 0 ? texts.join("\n") : undefined;
}

/** The last assistant text of a transcript, or undefined when it cannot be read or has none. */
export function lastAssistantText(path: string): string | undefined {
  const text = tail(path);
  if (text === undefined) return undefined;
  const lines = text.split("\n");
  for (let i = lines.length - 1; i >= 0; i--) {
    const said = assistantText(lines[i]!);
    if (said !== undefined) return said;
  }
  return undefined;
}

/**
 * Why this stop's last words are not the agent's own, or null when they are (or when there is no
 * transcript to hold them against: opencode's plugin passes the task's output itself).
 */
export function forgedLastWords(input: {
  agent_id?: string | undefined;
  [key: string]: unknown;
}): string | null {
  const words = input["last_assistant_message"];
  if (typeof words !== "string" || words === "") return null;
  const path = subagentTranscript(input);
  if (path === undefined) return null;
  const said = lastAssistantText(path);
  if (said === undefined) return null;
  if (said.trim() === words.trim()) return null;
  return `the stop's last message (${JSON.stringify(words.slice(0, 80))}) is not the agent's last message in its transcript (${JSON.stringify(said.slice(0, 80))})`;
}
