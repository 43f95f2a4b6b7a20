import { afterEach, describe, expect, test } from "vitest";
import {
  type FakeMessagesApi,
  type MessagesRequest,
  type ScriptInput,
  say,
  startFakeMessagesApi,
  text,
  toolResults,
  toolUse,
} from "./fake-messages-api.js";

let api: FakeMessagesApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

async function start(script: ScriptInput): Promise<FakeMessagesApi> {
  api = await startFakeMessagesApi(script);
  return api;
}

const BILLING = {
  type: "text",
  text: "x-anthropic-billing-header: cc_version=2.1.330.abc; cc_entrypoint=sdk-cli;",
};
const SUB_BILLING = { ...BILLING, text: `${BILLING.text} cc_is_subagent=true;` };

/** A request shaped like Claude Code's: reminders before the prompt, a role:"system" entry after it. */
function request(
  prompt: string,
  extra: Partial<MessagesRequest> & { later?: MessagesRequest["messages"] } = {},
) {
  const { later = [], ...rest } = extra;
  return {
    model: "claude-opus-5-5",
    max_tokens: 128000,
    stream: true,
    thinking: { type: "adaptive" },
    system: [BILLING, { type: "text", text: "MAIN-SYSTEM" }],
    tools: [{ name: "Write", input_schema: {} }],
    messages: [
      {
        role: "user",
        content: [
          { type: "text", text: "<system-reminder>gitStatus</system-reminder>" },
          { type: "text", text: prompt },
        ],
      },
      { role: "system", content: "# Environment" },
      ...later,
    ],
    ...rest,
  };
}

async function post(url: string, body: unknown): Promise<Response> {
  return fetch(`${url}/v1/messages?beta=true`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": "sk-test" },
    body: JSON.stringify(body),
  });
}

// biome-ignore lint/suspicious/noExplicitAny: SSE payloads have many shapes; tests assert on them directly
type Frame = { event: string; data: Record<string, any> };

function parseSse(body: string): Frame[] {
  expect(body.endsWith("\n\n")).toBe(true);
  return body
    .slice(0, -2)
    .split("\n\n")
    .map((chunk) => {
      const [eventLine = "", dataLine = "", ...rest] = chunk.split("\n");
      expect(rest).toEqual([]);
      expect(eventLine).toMatch(/^event: \w+$/);
      expect(dataLine.startsWith("data: ")).toBe(true);
      const data = JSON.parse(dataLine.slice("data: ".length));
      expect(data.type).toBe(eventLine.slice("event: ".length));
      return { event: data.type, data };
    });
}

describe("fake Messages API", () => {
  test("streams text and tool_use blocks as parseable SSE", async () => {
    const input = { file_path: "/tmp/x/report.md", content: 'line "one"\nline two\n' };
    const { url } = await start({
      conversations: [{ turns: [say(text("Writing."), toolUse("Write", input))] }],
    });
    const res = await post(url, request("do it"));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    expect(res.headers.get("request-id")).toMatch(/^req_/);
    const frames = parseSse(await res.text());
    expect(frames.map((f) => f.event)).toEqual([
      "message_start",
      ...["content_block_start", "content_block_delta", "content_block_stop"],
      ...["content_block_start", "content_block_delta", "content_block_stop"],
      "message_delta",
      "message_stop",
    ]);
    const start0 = frames[0]!.data.message;
    expect(start0).toMatchObject({
      role: "assistant",
      model: "claude-opus-5-5",
      content: [],
      stop_reason: null,
    });
    expect(start0.usage.input_tokens).toBeGreaterThan(50);
    expect(frames[2]!.data.delta).toEqual({ type: "text_delta", text: "Writing." });
    const toolStart = frames[4]!.data;
    expect(toolStart.index).toBe(1);
    expect(toolStart.content_block).toMatchObject({ type: "tool_use", name: "Write", input: {} });
    expect(toolStart.content_block.id).toMatch(/^toolu_/);
    expect(frames[5]!.data.delta.type).toBe("input_json_delta");
    expect(JSON.parse(frames[5]!.data.delta.partial_json)).toEqual(input);
    expect(frames[7]!.data.delta).toEqual({ stop_reason: "tool_use", stop_sequence: null });
    expect(frames[7]!.data.usage.output_tokens).toBeGreaterThan(0);
  });

  test("a text-only turn ends the turn; stream:false gets one JSON message", async () => {
    const { url } = await start({ conversations: [{ turns: [say(text("All done."))] }] });
    const streamed = parseSse(await (await post(url, request("go"))).text());
    expect(streamed.at(-2)!.data.delta.stop_reason).toBe("end_turn");
    const plain = await post(url, { ...request("go"), stream: false, model: "claude-haiku-5-5" });
    expect(plain.headers.get("content-type")).toBe("application/json");
    expect(await plain.json()).toMatchObject({
      type: "message",
      role: "assistant",
      model: "claude-haiku-5-5",
      content: [{ type: "text", text: "All done." }],
      stop_reason: "end_turn",
      stop_sequence: null,
      usage: { cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    });
  });

  test("picks the conversation by prompt and sub-agent flag, and the turn by assistant messages", async () => {
    const { url, requests } = await start({
      conversations: [
        { name: "main", match: { prompt: "MAIN" }, turns: [say(text("m0")), say(text("m1"))] },
        { name: "sub", match: { prompt: "SUBTASK", subagent: true }, turns: [say(text("s0"))] },
        { name: "by-system", match: { system: "OTHER-SYSTEM" }, turns: [say(text("o0"))] },
      ],
    });
    const replyText = async (body: unknown) =>
      parseSse(await (await post(url, body)).text())[2]!.data.delta.text;
    expect(await replyText(request("MAIN task"))).toBe("m0");
    const assistant = { role: "assistant", content: [{ type: "text", text: "m0" }] };
    const later = [assistant, { role: "user", content: "more" }, { role: "system", content: "note" }];
    expect(await replyText(request("MAIN task", { later }))).toBe("m1");
    expect(await replyText(request("SUBTASK only", { system: [SUB_BILLING] }))).toBe("s0");
    expect(await replyText(request("x", { system: [BILLING, { type: "text", text: "OTHER-SYSTEM" }] }))).toBe(
      "o0",
    );
    expect(requests.map((r) => [r.conversation, r.turn, r.subagent, r.prompt])).toEqual([
      ["main", 0, false, "MAIN task"],
      ["main", 1, false, "MAIN task"],
      ["sub", 0, true, "SUBTASK only"],
      ["by-system", 0, false, "x"],
    ]);
  });

  test("an error turn answers with the status and an API error body", async () => {
    const overloaded = { status: 529, type: "overloaded_error", message: "busy", shouldRetry: false };
    const { url, requests } = await start({ conversations: [{ turns: [{ error: overloaded }] }] });
    const res = await post(url, request("go"));
    expect(res.status).toBe(529);
    expect(res.headers.get("x-should-retry")).toBe("false");
    expect(await res.json()).toEqual({ type: "error", error: { type: "overloaded_error", message: "busy" } });
    expect(requests[0]).toMatchObject({ status: 529, source: "script" });
  });

  test("an unscripted request gets a 400 and is reported; a fallback answers instead when given", async () => {
    const bare = await start({ conversations: [{ match: { prompt: "KNOWN" }, turns: [say(text("one"))] }] });
    const res = await post(bare.url, request("unknown prompt"));
    expect(res.status).toBe(400);
    expect((await res.json()).error.message).toContain("no conversation matches this main-thread request");
    const later = [
      { role: "assistant", content: [{ type: "text", text: "one" }] },
      { role: "user", content: "?" },
    ];
    await post(bare.url, request("KNOWN", { later }));
    expect(bare.problems()).toEqual([
      expect.stringContaining(
        'request 1: no conversation matches this main-thread request (prompt "unknown prompt")',
      ),
      "request 2: conversation #0 has 1 turns; this request asks for turn 1",
    ]);
    await bare.close();

    const withFallback = await start({ conversations: [], fallback: say(text("fallback reply")) });
    const frames = parseSse(await (await post(withFallback.url, request("anything"))).text());
    expect(frames[2]!.data.delta.text).toBe("fallback reply");
    expect(withFallback.requests[0]).toMatchObject({ source: "fallback", status: 200 });
    expect(withFallback.problems()).toEqual([]);
  });

  test("other paths answer 200; count_tokens gives input_tokens; everything is recorded", async () => {
    const { url, requests, messageRequests } = await start({ conversations: [{ turns: [say(text("hi"))] }] });
    expect((await fetch(`${url}/api/hello`, { method: "HEAD" })).status).toBe(200);
    const counted = await fetch(`${url}/v1/messages/count_tokens?beta=true`, {
      method: "POST",
      body: JSON.stringify(request("count me")),
    });
    expect(counted.status).toBe(200);
    expect((await counted.json()).input_tokens).toBeGreaterThan(0);
    await (await post(url, request("go"))).text();
    expect(requests.map((r) => [r.method, r.path, r.query, r.source])).toEqual([
      ["HEAD", "/api/hello", "", "other"],
      ["POST", "/v1/messages/count_tokens", "beta=true", "other"],
      ["POST", "/v1/messages", "beta=true", "script"],
    ]);
    const [recorded] = messageRequests();
    expect(recorded!.headers["x-api-key"]).toBe("sk-test");
    expect(recorded!.body).toMatchObject({ model: "claude-opus-5-5", tools: [{ name: "Write" }] });
    expect(recorded!.json).toMatchObject({ thinking: { type: "adaptive" } });
  });

  test("a body that is not a messages request is a 400 with the reason", async () => {
    const fake = await start({ conversations: [] });
    const res = await post(fake.url, { messages: "nope" });
    expect(res.status).toBe(400);
    expect(fake.problems()).toEqual([
      expect.stringMatching(/unreadable \/v1\/messages body: model: expected string/),
    ]);
  });
});

describe("tool results and reply functions", () => {
  const assistantTurn = {
    role: "assistant",
    content: [
      { type: "text", text: "Two calls." },
      { type: "tool_use", id: "toolu_a", name: "Write", input: { file_path: "/r.md" } },
      { type: "tool_use", id: "toolu_b", name: "Bash", input: { command: "false" } },
    ],
  };
  const results = {
    role: "user",
    content: [
      { type: "tool_result", tool_use_id: "toolu_a", content: "File created successfully at: /r.md" },
      {
        type: "tool_result",
        tool_use_id: "toolu_b",
        content: [{ type: "text", text: "exit 1" }],
        is_error: true,
      },
    ],
  };

  test("toolResults pairs each result with its call in the previous assistant message", () => {
    const body = request("go", { later: [assistantTurn, results, { role: "system", content: "hook note" }] });
    expect(toolResults(body as MessagesRequest)).toEqual([
      {
        toolUseId: "toolu_a",
        name: "Write",
        input: { file_path: "/r.md" },
        content: "File created successfully at: /r.md",
        isError: false,
      },
      { toolUseId: "toolu_b", name: "Bash", input: { command: "false" }, content: "exit 1", isError: true },
    ]);
    expect(toolResults(request("go") as MessagesRequest)).toEqual([]);
  });

  test("a reply function branches on the request; an invalid reply is reported", async () => {
    const { url, problems } = await start({
      conversations: [
        { match: { prompt: "bad" }, turns: [{ reply: () => ({ content: [] }) as never }] },
        {
          turns: [
            say(toolUse("Write", {})),
            {
              reply: ({ request: req, turn }) =>
                say(text(toolResults(req).some((r) => r.isError) ? `turn ${turn}: failed` : "ok")),
            },
          ],
        },
      ],
    });
    const frames = parseSse(
      await (await post(url, request("go", { later: [assistantTurn, results] }))).text(),
    );
    expect(frames[2]!.data.delta.text).toBe("turn 1: failed");
    expect((await post(url, request("bad"))).status).toBe(400);
    expect(problems()).toEqual([
      expect.stringContaining(
        "reply function of conversation #0 turn 0 returned an invalid reply: content: must be at least 1",
      ),
    ]);
  });
});

test("startFakeMessagesApi refuses an invalid script before listening", async () => {
  await expect(startFakeMessagesApi({ conversations: [{ turns: [{}] }] })).rejects.toThrow(
    /invalid fake Messages API script: conversations\[0\]\.turns\[0\]: give exactly one of content, error or reply/,
  );
});
