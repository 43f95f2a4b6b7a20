import { describe, expect, it } from "vitest";
import { OpencodeEventInterpreter } from "./opencode-stream.js";
import type { RunnerEvent } from "./runner-types.js";

/** Lines as `opencode run --format json` 1.18.33 prints them (contract 2.2), ids shortened. */
const LINES = [
  '{"type":"step_start","timestamp":1,"sessionID":"ses_a","part":{"type":"step-start"}}',
  '{"type":"tool_use","timestamp":2,"sessionID":"ses_a","part":{"type":"tool","tool":"write","state":{"status":"completed","input":{"filePath":"out.txt"},"title":"out.txt"}}}',
  '{"type":"tool_use","timestamp":3,"sessionID":"ses_a","part":{"type":"tool","tool":"read","state":{"status":"error","error":"File not found: missing.txt"}}}',
  '{"type":"step_finish","timestamp":4,"sessionID":"ses_a","part":{"type":"step-finish","reason":"tool-calls","tokens":{"input":100,"output":7},"cost":0.01}}',
  '{"type":"text","timestamp":5,"sessionID":"ses_a","part":{"type":"text","text":"Done.\\nTASK_ERROR: none really"}}',
  '{"type":"step_finish","timestamp":6,"sessionID":"ses_a","part":{"type":"step-finish","reason":"stop","tokens":{"input":120,"output":9},"cost":0.02}}',
  "not json at all",
  '{"type":"something_new","sessionID":"ses_a"}',
];

describe("opencode --format json", () => {
  it("turns events into steps and output, sums usage over steps, and keeps the session id", () => {
    const interpreter = new OpencodeEventInterpreter();
    const events: RunnerEvent[] = [];
    for (const line of LINES) interpreter.line(line, (e) => events.push(e));
    expect(events.filter((e) => e.type === "step")).toEqual([
      { type: "step", label: "write: out.txt", tool: "write" },
      { type: "step", label: "read failed: File not found: missing.txt", tool: "read" },
    ]);
    const result = interpreter.result();
    expect(result.output).toBe("Done.\nTASK_ERROR: none really\nnot json at all\n");
    expect(result.usage).toEqual({ inputTokens: 220, outputTokens: 16, costUsd: 0.03, turns: 2 });
    expect(result.failure).toBeUndefined();
    expect(interpreter.sessionId).toBe("ses_a");
  });

  it("reports a session error as the agent's failure", () => {
    const interpreter = new OpencodeEventInterpreter();
    interpreter.line(
      '{"type":"error","sessionID":"ses_b","error":{"name":"APIError","data":{"message":"SCRIPTED-400-ERROR","statusCode":400}}}',
      () => {},
    );
    expect(interpreter.result().failure).toEqual({
      reason: "agent_error",
      message: "APIError: SCRIPTED-400-ERROR",
    });
  });
});
