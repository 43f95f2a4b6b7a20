import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { formatIssues } from "../shared/index.js";
import { isSubagentRequest, MessagesRequest, promptOf, turnIndex } from "./fake-messages-request.js";
import {
  FakeScriptError,
  parseScript,
  type Reply,
  type ReplyBlock,
  resolveTurn,
  type Script,
  type ScriptInput,
  selectTurn,
} from "./fake-messages-script.js";

/**
 * A scripted stand-in for the Anthropic Messages API, enough for the real Claude Code binary to run
 * offline (contract 12): `POST /v1/messages` streams scripted turns as SSE, everything else gets 200.
 */

export * from "./fake-messages-request.js";
export * from "./fake-messages-script.js";

export interface RecordedRequest {
  seq: number;
  method: string;
  /** Without the query string. */
  path: string;
  query: string;
  headers: IncomingHttpHeaders;
  /** Parsed JSON body, or undefined when empty or not JSON. */
  json: unknown;
  /** Set for `POST /v1/messages` with a readable body. */
  body: MessagesRequest | undefined;
  subagent: boolean;
  prompt: string;
  turn: number;
  /** `script`/`fallback`: answered from the script; `none`: no turn covered it; `other`: not a message request. */
  source: "script" | "fallback" | "none" | "other";
  conversation: string | null;
  status: number;
  /** What went wrong on the fake's side (no scripted turn, a bad reply function); tests assert it is absent. */
  problem?: string;
}

export interface FakeMessagesApi {
  /** `http://127.0.0.1:<port>`, for ANTHROPIC_BASE_URL. */
  url: string;
  port: number;
  /** Every request received, in order. */
  readonly requests: RecordedRequest[];
  /** Only the `POST /v1/messages` requests. */
  messageRequests(): RecordedRequest[];
  /** The problems of all requests; an empty list means the script covered everything asked. */
  problems(): string[];
  setScript(script: ScriptInput): void;
  close(): Promise<void>;
}

export async function startFakeMessagesApi(script: ScriptInput): Promise<FakeMessagesApi> {
  const fake = new FakeMessages(parseScript(script));
  const server = createServer((req, res) => {
    void fake.handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendError(res, 500, "api_error", `fake Messages API crashed: ${String(error)}`);
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const { requests } = fake;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    messageRequests: () => requests.filter((r) => r.method === "POST" && r.path === "/v1/messages"),
    problems: () => requests.flatMap((r) => (r.problem ? [`request ${r.seq}: ${r.problem}`] : [])),
    setScript: (next) => {
      fake.script = parseScript(next);
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        // Claude Code keeps its connection alive; without this close() would wait for it to time out.
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/** The fake's side of each request: recorded, answered from the script, or refused saying what is missing. */
class FakeMessages {
  readonly requests: RecordedRequest[] = [];
  private ids = 0;

  constructor(public script: Script) {}

  private nextId(prefix: string): string {
    return `${prefix}_fake_${String(++this.ids).padStart(4, "0")}`;
  }

  private record(req: IncomingMessage, raw: string): RecordedRequest {
    const [path = "", query = ""] = (req.url ?? "").split("?", 2);
    let json: unknown;
    try {
      json = raw === "" ? undefined : JSON.parse(raw);
    } catch {
      json = undefined;
    }
    const record: RecordedRequest = {
      seq: this.requests.length + 1,
      method: req.method ?? "",
      path,
      query,
      headers: req.headers,
      json,
      body: undefined,
      subagent: false,
      prompt: "",
      turn: 0,
      source: "other",
      conversation: null,
      status: 200,
    };
    this.requests.push(record);
    return record;
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    const record = this.record(req, raw);
    if (req.method !== "POST" || record.path !== "/v1/messages") {
      res.setHeader("request-id", this.nextId("req"));
      if (record.path === "/v1/messages/count_tokens")
        return sendJson(res, 200, { input_tokens: estimateTokens(raw) });
      res.writeHead(200, { "content-type": "application/json" });
      res.end(req.method === "HEAD" ? undefined : "{}");
      return;
    }
    const parsed = MessagesRequest.safeParse(record.json);
    if (!parsed.success) {
      record.problem = `unreadable /v1/messages body: ${formatIssues(parsed.error.issues)}`;
      record.status = 400;
      return sendError(res, 400, "invalid_request_error", record.problem);
    }
    const request = parsed.data;
    Object.assign(record, {
      body: request,
      subagent: isSubagentRequest(request),
      prompt: promptOf(request),
      turn: turnIndex(request),
    });
    const reply = this.reply(record, request);
    if (reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
    res.setHeader("request-id", this.nextId("req"));
    if (reply.error) {
      record.status = reply.error.status;
      if (reply.error.shouldRetry !== undefined)
        res.setHeader("x-should-retry", String(reply.error.shouldRetry));
      return sendError(res, reply.error.status, reply.error.type, reply.error.message);
    }
    const message = buildMessage(reply, request.model, raw, (prefix) => this.nextId(prefix));
    if (request.stream === false) return sendJson(res, 200, message);
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    res.end(sseFrames(message));
  }

  /** The scripted turn's reply; a problem (no turn, a reply function that threw) is recorded and refused. */
  private reply(record: RecordedRequest, request: MessagesRequest): Reply {
    const selection = selectTurn(this.script, request, record.turn);
    record.source = selection.source;
    record.conversation = selection.conversation;
    if (selection.source === "none") {
      record.problem = selection.problem;
      return unscripted(selection.problem);
    }
    try {
      return resolveTurn(selection.spec, {
        request,
        turn: record.turn,
        conversation: selection.conversation,
      });
    } catch (error) {
      record.problem =
        error instanceof FakeScriptError ? error.message : `reply function threw: ${String(error)}`;
      return unscripted(record.problem);
    }
  }
}

// A 400 is not retried by Claude Code, so a gap in the script fails the run at once instead of backing off.
function unscripted(problem: string): Reply {
  return {
    error: {
      status: 400,
      type: "invalid_request_error",
      message: `fake Messages API: ${problem}`,
      shouldRetry: false,
    },
  };
}

interface ApiMessageOut {
  id: string;
  type: "message";
  role: "assistant";
  model: string;
  content: Array<
    | { type: "text"; text: string }
    | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> }
  >;
  stop_reason: string;
  stop_sequence: null;
  usage: {
    input_tokens: number;
    output_tokens: number;
    cache_creation_input_tokens: number;
    cache_read_input_tokens: number;
  };
}

function buildMessage(
  reply: Reply,
  model: string,
  rawRequest: string,
  nextId: (prefix: string) => string,
): ApiMessageOut {
  const blocks: ReplyBlock[] = reply.content ?? [];
  const content = blocks.map((block) =>
    block.type === "text"
      ? { type: "text" as const, text: block.text }
      : { type: "tool_use" as const, id: block.id ?? nextId("toolu"), name: block.name, input: block.input },
  );
  const hasToolUse = content.some((block) => block.type === "tool_use");
  return {
    id: nextId("msg"),
    type: "message",
    role: "assistant",
    model,
    content,
    stop_reason: reply.stopReason ?? (hasToolUse ? "tool_use" : "end_turn"),
    stop_sequence: null,
    usage: {
      input_tokens: reply.usage?.input_tokens ?? estimateTokens(rawRequest),
      output_tokens: reply.usage?.output_tokens ?? Math.max(1, estimateTokens(JSON.stringify(content))),
      cache_creation_input_tokens: reply.usage?.cache_creation_input_tokens ?? 0,
      cache_read_input_tokens: reply.usage?.cache_read_input_tokens ?? 0,
    },
  };
}

/** Roughly four characters a token, which keeps costs in the result plausible. */
function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** The stream the real API sends: each block whole in one delta (tool input as one input_json_delta). */
function sseFrames(message: ApiMessageOut): string {
  const frames: string[] = [];
  const frame = (type: string, data: object) =>
    frames.push(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  frame("message_start", {
    message: { ...message, content: [], stop_reason: null, usage: { ...message.usage, output_tokens: 1 } },
  });
  message.content.forEach((block, index) => {
    if (block.type === "text") {
      frame("content_block_start", { index, content_block: { type: "text", text: "" } });
      frame("content_block_delta", { index, delta: { type: "text_delta", text: block.text } });
    } else {
      frame("content_block_start", { index, content_block: { ...block, input: {} } });
      frame("content_block_delta", {
        index,
        delta: { type: "input_json_delta", partial_json: JSON.stringify(block.input) },
      });
    }
    frame("content_block_stop", { index });
  });
  frame("message_delta", {
    delta: { stop_reason: message.stop_reason, stop_sequence: null },
    usage: { output_tokens: message.usage.output_tokens },
  });
  frame("message_stop", {});
  return frames.join("");
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

function sendError(res: ServerResponse, status: number, type: string, message: string): void {
  sendJson(res, status, { type: "error", error: { type, message } });
}
