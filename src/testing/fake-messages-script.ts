import * as z from "zod/mini";
import { formatIssues } from "../shared/index.js";
import { isSubagentRequest, type MessagesRequest, promptOf, systemText } from "./fake-messages-request.js";

const TextBlock = z.strictObject({ type: z.literal("text"), text: z.string() });
const ToolUseBlock = z.strictObject({
  type: z.literal("tool_use"),
  name: z.string().check(z.minLength(1)),
  input: z.record(z.string(), z.unknown()),
  /** Defaults to a unique `toolu_fake_N`; hooks see it as `tool_use_id`. */
  id: z.optional(z.string().check(z.minLength(1))),
});
const ReplyBlock = z.discriminatedUnion("type", [TextBlock, ToolUseBlock]);
export type ReplyBlock = z.infer<typeof ReplyBlock>;

const Count = z.number().check(z.int(), z.minimum(0));
const Usage = z.strictObject({
  input_tokens: z.optional(Count),
  output_tokens: z.optional(Count),
  cache_creation_input_tokens: z.optional(Count),
  cache_read_input_tokens: z.optional(Count),
});

const ApiError = z.strictObject({
  status: z.number().check(z.int(), z.minimum(400), z.maximum(599)),
  /** The API's error type, e.g. `overloaded_error`, `invalid_request_error`. */
  type: z.string().check(z.minLength(1)),
  message: z.string(),
  /** Sent as the `x-should-retry` header, which the Anthropic client honours before its own retry rules. */
  shouldRetry: z.optional(z.boolean()),
});

export type ReplyContext = { request: MessagesRequest; turn: number; conversation: string };
/** A turn computed from the request, e.g. to branch on `toolResults(request)`. */
export type ReplyFunction = (context: ReplyContext) => Reply;

const ReplyFn = z.custom<ReplyFunction>((value) => typeof value === "function", {
  message: "expected a function",
});

const replyShape = {
  /** The assistant message: text and tool_use blocks, streamed in this order. */
  content: z.optional(z.array(ReplyBlock).check(z.minLength(1))),
  /** Answer with an API error instead of a message. */
  error: z.optional(ApiError),
  /** Default: `tool_use` when content holds a tool_use block, else `end_turn`. */
  stopReason: z.optional(z.enum(["end_turn", "tool_use", "max_tokens", "stop_sequence"])),
  /** Default: estimated from the request and reply sizes. */
  usage: z.optional(Usage),
  /** Wait before answering, e.g. to let a test kill a run in the middle of a turn. */
  delayMs: z.optional(Count),
};

/** A fixed reply: exactly one of `content` or `error`. */
export const Reply = z.strictObject(replyShape).check(
  z.refine((r) => (r.content === undefined) !== (r.error === undefined), {
    message: "give exactly one of content or error",
  }),
);
export type Reply = z.infer<typeof Reply>;

/** A scripted turn: a fixed reply, or `{ reply: fn }` computed from the request. */
const Turn = z.strictObject({ ...replyShape, reply: z.optional(ReplyFn) }).check(
  z.refine((r) => [r.content, r.error, r.reply].filter((v) => v !== undefined).length === 1, {
    message: "give exactly one of content, error or reply",
  }),
);
export type Turn = z.infer<typeof Turn>;

const Match = z.strictObject({
  /** Substring of the conversation's prompt (see promptOf). */
  prompt: z.optional(z.string()),
  /** Substring of the joined system blocks, e.g. a marker from an agent's system prompt. */
  system: z.optional(z.string()),
  /** Sub-agent conversations (`cc_is_subagent=true`) only; default false: main thread only. */
  subagent: z.optional(z.boolean()),
});

const Conversation = z.strictObject({
  /** Shown in recorded requests and errors; defaults to `#<index>`. */
  name: z.optional(z.string()),
  match: z.optional(Match),
  /** Turn N answers the request whose messages hold N assistant messages. */
  turns: z.array(Turn),
});

export const Script = z.strictObject({
  /** Tried in order; the first match answers. */
  conversations: z.array(Conversation),
  /** Answers requests no conversation (or no remaining turn) covers; without it they get a 400 error. */
  fallback: z.optional(Turn),
});
export type Script = z.infer<typeof Script>;
export type ScriptInput = z.input<typeof Script>;

export class FakeScriptError extends Error {
  override name = "FakeScriptError";
}

export function parseScript(input: unknown): Script {
  const parsed = Script.safeParse(input, { reportInput: true });
  if (!parsed.success)
    throw new FakeScriptError(`invalid fake Messages API script: ${formatIssues(parsed.error.issues)}`);
  return parsed.data;
}

export type Selection =
  | { source: "script" | "fallback"; conversation: string; turn: number; spec: Turn }
  | { source: "none"; conversation: string | null; turn: number; problem: string };

/** Picks the turn that answers a request: the first matching conversation's turn, else the fallback. */
export function selectTurn(script: Script, request: MessagesRequest, turn: number): Selection {
  const prompt = promptOf(request);
  const subagent = isSubagentRequest(request);
  const system = systemText(request);
  const index = script.conversations.findIndex(
    ({ match = {} }) =>
      (match.subagent ?? false) === subagent &&
      (match.prompt === undefined || prompt.includes(match.prompt)) &&
      (match.system === undefined || system.includes(match.system)),
  );
  const conversation = index < 0 ? null : (script.conversations[index]!.name ?? `#${index}`);
  const spec = index < 0 ? undefined : script.conversations[index]!.turns[turn];
  if (spec) return { source: "script", conversation: conversation!, turn, spec };
  if (script.fallback)
    return { source: "fallback", conversation: conversation ?? "fallback", turn, spec: script.fallback };
  const where = subagent ? "sub-agent" : "main-thread";
  const problem =
    conversation === null
      ? `no conversation matches this ${where} request (prompt ${JSON.stringify(prompt.slice(0, 120))})`
      : `conversation ${conversation} has ${script.conversations[index]!.turns.length} turns; this request asks for turn ${turn}`;
  return { source: "none", conversation, turn, problem };
}

/** Resolves a turn to a fixed reply, calling `reply` functions and validating what they return. */
export function resolveTurn(spec: Turn, context: ReplyContext): Reply {
  if (!spec.reply) return spec;
  const parsed = Reply.safeParse(spec.reply(context), { reportInput: true });
  if (!parsed.success) {
    throw new FakeScriptError(
      `reply function of conversation ${context.conversation} turn ${context.turn} returned an invalid reply: ${formatIssues(parsed.error.issues)}`,
    );
  }
  return parsed.data;
}

export function text(text: string): ReplyBlock {
  return { type: "text", text };
}

export function toolUse(name: string, input: Record<string, unknown>, id?: string): ReplyBlock {
  return id === undefined ? { type: "tool_use", name, input } : { type: "tool_use", name, input, id };
}

/** A turn that answers with these blocks. */
export function say(...content: ReplyBlock[]): Reply {
  return { content };
}
