import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A scripted fake of the OpenAI Responses API (`POST /v1/responses`, streamed as server-sent events), the
 * API Codex CLI talks to (opencode contract 11.5). Turn N answers the request whose input already holds N
 * tool results, so a tool call and its result advance the script; every request is recorded.
 */
export type ResponsesReply =
  | { call: { name: string; arguments: Record<string, unknown> } }
  | { message: string };
/** A fixed reply, or one computed from the request (its input holds the prompt). */
export type ResponsesTurn = ResponsesReply | ((body: Record<string, unknown>) => ResponsesReply);

export interface FakeResponsesApi {
  url: string;
  requests: Array<{ turn: number; body: Record<string, unknown> }>;
  /** Requests no turn covered. */
  problems(): string[];
  close(): Promise<void>;
}

/** The output item a turn answers with: a function call, or a message. */
function outputItem(spec: ResponsesReply | undefined, n: number): Record<string, unknown> {
  if (spec && "call" in spec) {
    return {
      type: "function_call",
      id: `fc_${n}`,
      call_id: `call_${n}`,
      name: spec.call.name,
      arguments: JSON.stringify(spec.call.arguments),
      status: "completed",
    };
  }
  return {
    type: "message",
    id: `msg_${n}`,
    role: "assistant",
    status: "completed",
    content: [{ type: "output_text", text: spec?.message ?? "No scripted turn.", annotations: [] }],
  };
}

/** The streamed response: created, the item added and done, completed with its usage. */
function streamResponse(
  res: ServerResponse,
  item: Record<string, unknown>,
  n: number,
  model: unknown,
  raw: string,
): void {
  const response = { id: `resp_${n}`, object: "response", created_at: 0, model, output: [] };
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const send = (type: string, data: Record<string, unknown>) =>
    res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  send("response.created", { response: { ...response, status: "in_progress" } });
  send("response.output_item.added", { output_index: 0, item });
  send("response.output_item.done", { output_index: 0, item });
  const usage = {
    input_tokens: 100 + Math.round(raw.length / 10),
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 20,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 120 + Math.round(raw.length / 10),
  };
  send("response.completed", { response: { ...response, status: "completed", output: [item], usage } });
  res.end();
}

export async function startFakeResponsesApi(turns: ResponsesTurn[]): Promise<FakeResponsesApi> {
  const requests: FakeResponsesApi["requests"] = [];
  const problems: string[] = [];
  let seq = 0;
  const answer = (req: IncomingMessage, res: ServerResponse, raw: string) => {
    if (!(req.method === "POST" && (req.url ?? "").startsWith("/v1/responses"))) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(req.url?.startsWith("/v1/models") ? '{"object":"list","data":[]}' : "{}");
      return;
    }
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      // recorded as it is
    }
    const input = Array.isArray(body["input"]) ? (body["input"] as Array<{ type?: string }>) : [];
    const turn = input.filter((item) => item.type === "function_call_output").length;
    requests.push({ turn, body });
    const scripted = turns[turn];
    const spec = typeof scripted === "function" ? scripted(body) : scripted;
    const n = ++seq;
    if (!spec) problems.push(`no turn ${turn} in the script (request ${n})`);
    streamResponse(res, outputItem(spec, n), n, body["model"], raw);
  };
  const server = createServer((req, res) => {
    let raw = "";
    req.on("data", (chunk: Buffer) => (raw += chunk.toString("utf8")));
    req.on("end", () => answer(req, res, raw));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    problems: () => [...problems],
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The text the request's user messages carry (the prompt), joined. */
export function inputText(body: Record<string, unknown>): string {
  const input = Array.isArray(body["input"]) ? (body["input"] as Array<Record<string, unknown>>) : [];
  return input
    .filter((item) => item["role"] === "user")
    .flatMap((item) => (Array.isArray(item["content"]) ? (item["content"] as Array<{ text?: string }>) : []))
    .map((c) => c.text ?? "")
    .join("\n");
}
