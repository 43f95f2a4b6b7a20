import { describe, expect, test } from "vitest";
import { FakeScriptError, parseScript, say, text } from "./fake-messages-script.js";

describe("script validation", () => {
  test("a valid script keeps reply functions as given", () => {
    const reply = () => say(text("x"));
    const script = parseScript({ conversations: [{ match: { subagent: true }, turns: [{ reply }] }] });
    expect(script.conversations[0]!.turns[0]!.reply).toBe(reply);
  });

  test.each([
    [
      { conversations: [{ turns: [{ content: [{ type: "tool_use", name: "Write", input: "x" }] }] }] },
      /conversations\[0\]\.turns\[0\]\.content\[0\]\.input: expected record/,
    ],
    [
      {
        conversations: [
          { turns: [{ content: [text("a")], error: { status: 500, type: "api_error", message: "" } }] },
        ],
      },
      /conversations\[0\]\.turns\[0\]: give exactly one of content, error or reply/,
    ],
    [
      { conversations: [{ turns: [{ error: { status: 200, type: "x", message: "" } }] }] },
      /conversations\[0\]\.turns\[0\]\.error\.status: must be at least 400/,
    ],
    [
      { conversations: [{ match: { promt: "typo" }, turns: [] }] },
      /conversations\[0\]\.match: unknown key "promt"/,
    ],
    [{ turns: [] }, /conversations: expected array \(missing\); \(top level\): unknown key "turns"/],
  ])("rejects %j", async (script, message) => {
    expect(() => parseScript(script)).toThrow(FakeScriptError);
    expect(() => parseScript(script)).toThrow(message);
  });
});
