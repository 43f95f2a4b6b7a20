import { describe, expect, it } from "vitest";
import { OpenCheckpoint } from "../state/index.js";
import { StopHookInput, ToolHookInput } from "./hook-input-schema.js";
import { explainInput, isStopHookInput, isToolHookInput } from "./input.js";
import { isOpenCheckpoint } from "./project.js";

const tool = { session_id: "s", cwd: "/x", tool_name: "Bash", tool_input: { command: "ls" } };
const stop = {
  session_id: "s",
  cwd: "/x",
  stop_hook_active: true,
  background_tasks: [{ status: "running" }],
};

/** Each case is valid or broken for one of the schemas; the fast check must agree with zod on all. */
const variants: unknown[] = [
  tool,
  stop,
  { ...tool, agent_id: "a", agent_type: "researcher", tool_response: { stdout: "" }, extra: 1 },
  { ...tool, session_id: "" },
  { ...tool, session_id: 5 },
  { ...tool, cwd: undefined },
  { ...tool, tool_name: "" },
  { ...tool, tool_input: [] },
  { ...tool, tool_input: null },
  { ...tool, agent_id: 3 },
  { ...tool, hook_event_name: 1 },
  { ...stop, stop_hook_active: "yes" },
  { ...stop, background_tasks: {} },
  { ...stop, background_tasks: [null] },
  { ...stop, background_tasks: [{ status: 1 }] },
  { ...stop, agent_type: null },
  null,
  [],
  "text",
  42,
  {},
];

describe("hand-written input checks", () => {
  it.each(variants.map((v, i) => [i, v]))("agree with the zod schemas (case %i)", (_, value) => {
    expect(isToolHookInput(value)).toBe(ToolHookInput.safeParse(value).success);
    expect(isStopHookInput(value)).toBe(StopHookInput.safeParse(value).success);
  });

  it("explain a rejection with the field and what was expected", async () => {
    expect(await explainInput("tool", { ...tool, tool_input: [] })).toContain("tool_input: expected record");
    expect(await explainInput("stop", { cwd: "/x" })).toContain("session_id: expected string");
  });

  const checkpoint = {
    sessionId: "sess_1",
    taskNumber: 3,
    operation: "research",
    previousStatus: "not_started",
    pid: 1,
    hostname: "h",
    startedAt: "t",
  };
  it.each([
    checkpoint,
    { ...checkpoint, mode: "session", claudeSessionId: "c", previousSessionId: "p" },
    { ...checkpoint, mode: "other" },
    { ...checkpoint, claudeSessionId: 1 },
    { ...checkpoint, taskNumber: "3" },
    { ...checkpoint, pid: undefined },
    { ...checkpoint, sessionId: null },
    [],
    null,
  ])("mirror OpenCheckpoint: %j", (value) => {
    expect(isOpenCheckpoint(value)).toBe(OpenCheckpoint.safeParse(value).success);
  });
});
