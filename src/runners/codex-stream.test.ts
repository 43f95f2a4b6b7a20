import { describe, expect, it } from "vitest";
import { CodexEventInterpreter } from "./codex-stream.js";
import type { RunnerEvent } from "./runner-types.js";

/** Lines as `codex exec --json` 0.169.0 prints them (opencode contract 11.3). */
const LINES = [
  '{"type":"thread.started","thread_id":"01a20a0b-3d33"}',
  '{"type":"turn.started"}',
  '{"type":"item.started","item":{"id":"item_1","type":"command_execution","command":"/bin/bash -lc \'npm test\'","exit_code":null,"status":"in_progress"}}',
  '{"type":"item.completed","item":{"id":"item_1","type":"command_execution","command":"/bin/bash -lc \'npm test\'","aggregated_output":"ok\\n","exit_code":0,"status":"completed"}}',
  '{"type":"item.completed","item":{"id":"item_2","type":"error","message":"Model metadata for `fake-model` not found."}}',
  '{"type":"item.completed","item":{"id":"item_3","type":"agent_message","text":"All done.\\nTASK_ERROR: nothing"}}',
  '{"type":"turn.completed","usage":{"input_tokens":200,"cached_input_tokens":0,"output_tokens":20}}',
  '{"type":"error","message":"Reconnecting... waiting for network"}',
];

describe("codex exec --json", () => {
  it("turns items into steps and output, and turns into usage", () => {
    const interpreter = new CodexEventInterpreter();
    const events: RunnerEvent[] = [];
    for (const line of LINES) interpreter.line(line, (e) => events.push(e));
    expect(events.filter((e) => e.type === "step").map((e) => (e as { label: string }).label)).toEqual([
      "shell: /bin/bash -lc 'npm test'",
      "warning: Model metadata for `fake-model` not found.",
      "Reconnecting... waiting for network",
    ]);
    expect(interpreter.threadId).toBe("01a20a0b-3d33");
    expect(interpreter.result()).toEqual({
      output: "All done.\nTASK_ERROR: nothing\n",
      usage: { inputTokens: 200, outputTokens: 20, turns: 1 },
    });
  });

  it("reports a failed turn as the agent's failure", () => {
    const interpreter = new CodexEventInterpreter();
    interpreter.line('{"type":"turn.failed","error":{"message":"stream disconnected"}}', () => {});
    expect(interpreter.result().failure).toEqual({ reason: "agent_error", message: "stream disconnected" });
  });
});
