import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { ClaudeStreamInterpreter, toolLabel } from "./claude-stream.js";
import type { RunnerEvent } from "./runner-types.js";

/**
 * Recorded stream-json of the real binary (2.1.330 against the fake API; paths rewritten to /repo) and
 * lines built from the contract's examples (section 10).
 */

function interpret(lines: string[], cwd = "/repo") {
  const interpreter = new ClaudeStreamInterpreter(cwd);
  const events: RunnerEvent[] = [];
  for (const line of lines) interpreter.line(line, (event) => events.push(event));
  return { events, steps: events.filter((e) => e.type === "step"), ...interpreter.result() };
}

const recorded = (name: string) =>
  readFileSync(join(import.meta.dirname, "fixtures", `${name}.jsonl`), "utf8").split("\n");

const line = (value: object) => JSON.stringify(value);
const assistant = (content: object[], parent: string | null = null) =>
  line({ type: "assistant", message: { id: "msg_1", content }, parent_tool_use_id: parent, session_id: "s" });

describe("recorded runs", () => {
  test("a foreground sub-agent: its task events and tool calls are steps naming it", () => {
    const run = interpret(recorded("claude-subagent"));
    expect(run.steps).toEqual([
      { type: "step", label: "Agent helper: Sub research", tool: "Agent" },
      { type: "step", label: "helper started: Sub research", tool: "Agent", agent: "helper" },
      { type: "step", label: "helper: Writing b.md", tool: "Write", agent: "helper" },
      { type: "step", label: "Write b.md", tool: "Write", agent: "helper" },
    ]);
    // The sub-agent's own report goes back to the main thread; only the main thread's text is output.
    expect(run.output).toBe("MAIN done");
    // modelUsage covers the sub-agent too (27708 in); `usage` alone would say 25205.
    expect(run.usage).toEqual({
      inputTokens: 27708,
      outputTokens: 91,
      costUsd: 0.112652,
      turns: 2,
      durationMs: 311,
    });
    expect(run.failure).toBeUndefined();
  });

  test("an API error in the second turn is an agent_error with Claude's text", () => {
    const run = interpret(recorded("claude-api-error"));
    expect(run.failure).toEqual({
      reason: "agent_error",
      message: expect.stringMatching(
        /^Claude Code reported an error \(api_error, HTTP 500\): API Error: 500 SERVER-MARKER/,
      ),
    });
    expect(run.output).toMatch(/^Writing\.\nAPI Error: 500 SERVER-MARKER/);
    expect(run.steps).toEqual([{ type: "step", label: "Write a.md", tool: "Write" }]);
    expect(run.usage).toMatchObject({ turns: 2, costUsd: 0.050632 });
  });

  test("the turn limit is an agent_error taken from `errors` (result has no text)", () => {
    expect(interpret(recorded("claude-max-turns")).failure).toEqual({
      reason: "agent_error",
      message: "Claude Code reported an error (max_turns): Reached maximum number of turns (1)",
    });
  });

  test("a denied tool shows in the output, the run itself succeeds", () => {
    const run = interpret(recorded("claude-permission-denied"));
    expect(run.output).toBe(
      "Permission denied: Write: Claude requested permissions to write to /repo/a.md, but you haven't granted it yet.\nDone.",
    );
    expect(run.failure).toBeUndefined();
  });
});

describe("lines from the contract", () => {
  test("one assistant message per block: text becomes output lines, tool_use a step", () => {
    const run = interpret([
      line({ type: "system", subtype: "init", cwd: "/repo", session_id: "s", tools: ["Bash"], model: "m" }),
      assistant([{ type: "text", text: "Running it.\nTASK_ERROR: tests fail" }]),
      assistant([
        { type: "tool_use", id: "toolu_01", name: "Bash", input: { command: "echo hi", description: "x" } },
      ]),
      line({ type: "user", message: { role: "user", content: [{ type: "tool_result", content: "hi" }] } }),
    ]);
    expect(run.events).toEqual([
      { type: "output", stream: "stdout", line: "Running it." },
      { type: "output", stream: "stdout", line: "TASK_ERROR: tests fail" },
      { type: "step", label: "Bash: echo hi", tool: "Bash" },
    ]);
    expect(run.output).toBe("Running it.\nTASK_ERROR: tests fail");
    expect(run.usage).toBeUndefined(); // no result: a killed run
  });

  test("usage falls back to the main loop's, with cache writes and reads counted as input", () => {
    const run = interpret([
      line({
        type: "result",
        subtype: "success",
        is_error: false,
        result: "done",
        num_turns: 4,
        duration_ms: 1234,
        total_cost_usd: 0.5,
        usage: {
          input_tokens: 100,
          cache_creation_input_tokens: 20,
          cache_read_input_tokens: 3,
          output_tokens: 7,
        },
      }),
    ]);
    expect(run.usage).toEqual({
      inputTokens: 123,
      outputTokens: 7,
      costUsd: 0.5,
      turns: 4,
      durationMs: 1234,
    });
    expect(run.failure).toBeUndefined();
  });

  test("is_error on a success subtype fails; the last result wins", () => {
    const run = interpret([
      line({ type: "result", subtype: "success", is_error: false, result: "first" }),
      line({
        type: "result",
        subtype: "success",
        is_error: true,
        result: "API Error: 401 bad key",
        terminal_reason: "api_error",
        api_error_status: 401,
      }),
    ]);
    expect(run.failure?.message).toBe(
      "Claude Code reported an error (api_error, HTTP 401): API Error: 401 bad key",
    );
  });

  test("tolerant: unknown types ignored, fields of the wrong type dropped, other text kept", () => {
    const run = interpret([
      "",
      "Claude Code warming up",
      "{not json",
      "[1,2]",
      line({ type: "stream_event", event: { type: "message_start" } }),
      line({ type: "system", subtype: "hook_started", hook_event: "SessionStart" }),
      line({ type: "assistant", message: "not an object" }),
      line({
        type: "result",
        subtype: "success",
        is_error: false,
        num_turns: "3",
        total_cost_usd: 0.1,
        usage: null,
      }),
    ]);
    expect(run.output).toBe("Claude Code warming up\n{not json\n[1,2]");
    expect(run.usage).toEqual({ costUsd: 0.1 });
    expect(run.failure).toBeUndefined();
  });

  test("task_progress without a task_started still names the agent it carries", () => {
    const run = interpret([
      line({ type: "system", subtype: "api_retry", attempt: 2, max_retries: 10, error_status: 529 }),
      line({
        type: "system",
        subtype: "task_progress",
        tool_use_id: "t1",
        description: "Running tests",
        subagent_type: "implementer",
        usage: { total_tokens: 1, tool_uses: 1, duration_ms: 1 },
        last_tool_name: "Bash",
      }),
    ]);
    expect(run.steps).toEqual([
      { type: "step", label: "API retry 2/10 (529)" },
      { type: "step", label: "implementer: Running tests", tool: "Bash", agent: "implementer" },
    ]);
  });
});

test("tool labels: repository-relative paths, one clipped line", () => {
  expect(toolLabel("Write", { file_path: "/repo/specs/1_x/plans/p.md", content: "…" }, "/repo")).toBe(
    "Write specs/1_x/plans/p.md",
  );
  expect(toolLabel("Read", { file_path: "/etc/hosts" }, "/repo")).toBe("Read /etc/hosts");
  expect(toolLabel("Edit", { file_path: "/repo2/a.ts" }, "/repo")).toBe("Edit /repo2/a.ts");
  expect(toolLabel("Bash", { command: "npm test\nnpm run lint" }, "/repo")).toBe("Bash: npm test");
  expect(toolLabel("Grep", { pattern: "TODO" }, "/repo")).toBe("Grep: TODO");
  expect(toolLabel("TodoWrite", { todos: [] }, "/repo")).toBe("TodoWrite");
  const long = toolLabel("Bash", { command: "x".repeat(500) }, "/repo");
  expect(long).toHaveLength(120);
  expect(long.endsWith("…")).toBe(true);
});
