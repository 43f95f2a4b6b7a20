import * as z from "zod/mini";

/**
 * The parts of a Messages API request body the fake reads. Loose objects: Claude Code sends fields the
 * public API does not document (`thinking`, `context_management`, `output_config`, role:"system"
 * messages), and a test must never fail because the binary added one more.
 */
const ApiBlock = z.looseObject({ type: z.string() });
const ApiMessage = z.looseObject({ role: z.string(), content: z.union([z.string(), z.array(ApiBlock)]) });

export const MessagesRequest = z.looseObject({
  model: z.string(),
  messages: z.array(ApiMessage),
  system: z.optional(z.union([z.string(), z.array(ApiBlock)])),
  tools: z.optional(z.array(z.looseObject({ name: z.optional(z.string()) }))),
  stream: z.optional(z.boolean()),
  max_tokens: z.optional(z.number()),
});
export type MessagesRequest = z.infer<typeof MessagesRequest>;
export type ApiMessage = z.infer<typeof ApiMessage>;
export type ApiBlock = z.infer<typeof ApiBlock>;

/** One tool result in the newest user message, with the name of the tool that produced it. */
export interface ToolResult {
  toolUseId: string;
  /** Found through `tool_use_id` in the preceding assistant message; null if that call is not there. */
  name: string | null;
  input: unknown;
  content: string;
  isError: boolean;
}

function blocksOf(message: ApiMessage): ApiBlock[] {
  return typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content;
}

function textOf(block: ApiBlock): string | null {
  return block.type === "text" && typeof block["text"] === "string" ? block["text"] : null;
}

/** The first user message: the conversation's identity (Claude Code puts its reminders before the prompt). */
export function firstUserMessage(request: MessagesRequest): ApiMessage | undefined {
  return request.messages.find((m) => m.role === "user");
}

/**
 * The prompt of the conversation: the last text block of the first user message. For the main thread
 * that is the `-p` prompt; for a sub-agent, the `prompt` of the Agent call that started it.
 */
export function promptOf(request: MessagesRequest): string {
  const first = firstUserMessage(request);
  if (!first) return "";
  const texts = blocksOf(first)
    .map(textOf)
    .filter((t): t is string => t !== null);
  return texts.at(-1) ?? "";
}

/** The system blocks joined with blank lines (the billing header, the SDK line, then the agent's prompt). */
export function systemText(request: MessagesRequest): string {
  const { system } = request;
  if (system === undefined) return "";
  if (typeof system === "string") return system;
  return system
    .map(textOf)
    .filter((t): t is string => t !== null)
    .join("\n\n");
}

export function systemBlocks(request: MessagesRequest): string[] {
  const { system } = request;
  if (system === undefined) return [];
  if (typeof system === "string") return [system];
  return system.map(textOf).filter((t): t is string => t !== null);
}

/** Claude Code marks every sub-agent request in its billing header block (contract 11). */
export function isSubagentRequest(request: MessagesRequest): boolean {
  return systemBlocks(request).some((text) => text.includes("cc_is_subagent=true"));
}

/** The turn being asked for: how many assistant messages the conversation already holds. */
export function turnIndex(request: MessagesRequest): number {
  return request.messages.filter((m) => m.role === "assistant").length;
}

export function toolNames(request: MessagesRequest): string[] {
  return (request.tools ?? []).map((t) => t.name ?? "").filter((name) => name !== "");
}

/** The newest user message; trailing role:"system" entries (hook notes) are skipped. */
export function lastUserMessage(request: MessagesRequest): ApiMessage | undefined {
  return request.messages[lastIndexOfRole(request.messages, "user")];
}

// Array.prototype.findLast is ES2023; the project targets ES2022.
function lastIndexOfRole(messages: ApiMessage[], role: string, before = messages.length): number {
  for (let i = before - 1; i >= 0; i--) if (messages[i]!.role === role) return i;
  return -1;
}

/** Every text the model would read in the newest user message, tool results included. */
export function lastUserText(request: MessagesRequest): string {
  const last = lastUserMessage(request);
  if (!last) return "";
  return blocksOf(last)
    .map((block) => textOf(block) ?? (block.type === "tool_result" ? resultContent(block["content"]) : null))
    .filter((t): t is string => t !== null)
    .join("\n");
}

function resultContent(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((block) =>
      typeof block === "object" && block !== null && typeof block.text === "string" ? block.text : "",
    )
    .join("\n");
}

/**
 * The results of the tool calls the previous assistant turn made, in the order they appear. A script
 * turn given as a function can branch on them (or a test can assert on them afterwards).
 */
export function toolResults(request: MessagesRequest): ToolResult[] {
  const userAt = lastIndexOfRole(request.messages, "user");
  if (userAt < 0) return [];
  const previous = request.messages[lastIndexOfRole(request.messages, "assistant", userAt)];
  const calls = new Map<string, ApiBlock>();
  for (const block of previous ? blocksOf(previous) : []) {
    if (block.type === "tool_use" && typeof block["id"] === "string") calls.set(block["id"], block);
  }
  const results: ToolResult[] = [];
  for (const block of blocksOf(request.messages[userAt]!)) {
    if (block.type !== "tool_result") continue;
    const toolUseId = typeof block["tool_use_id"] === "string" ? block["tool_use_id"] : "";
    const call = calls.get(toolUseId);
    results.push({
      toolUseId,
      name: typeof call?.["name"] === "string" ? call["name"] : null,
      input: call?.["input"],
      content: resultContent(block["content"]),
      isError: block["is_error"] === true,
    });
  }
  return results;
}
