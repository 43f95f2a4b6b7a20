import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { recordingOptions } from "../testing/run-request.js";
import { type OutputInterpreter, runAgentProcess } from "./agent-process.js";

const dir = mkdtempSync(join(tmpdir(), "baton-agent-process-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("runAgentProcess with a structured-output interpreter", () => {
  it("turns JSON lines into steps and takes output text and usage from the interpreter", async () => {
    // The shape a stream-json runner needs: tool calls become steps, the final message is the output.
    let text = "";
    let turns = 0;
    const interpreter: OutputInterpreter = {
      line(line, emit) {
        const message = JSON.parse(line) as { type: string; tool?: string; text?: string; turns?: number };
        if (message.type === "tool_use")
          emit({ type: "step", label: `${message.tool}`, tool: message.tool! });
        if (message.type === "result") {
          text = message.text!;
          turns = message.turns!;
        }
      },
      result: () => ({ output: text, usage: { turns } }),
    };
    const lines = [
      { type: "tool_use", tool: "Bash" },
      { type: "result", text: "All done.\nTASK_ERROR: none", turns: 4 },
    ];
    const options = recordingOptions();
    const outcome = await runAgentProcess(
      "command",
      {
        command: process.execPath,
        args: [
          "-e",
          `for (const l of ${JSON.stringify(lines.map((l) => JSON.stringify(l)))}) console.log(l)`,
        ],
        cwd: dir,
        env: process.env,
        interpreter,
      },
      options,
    );
    expect(outcome).toMatchObject({ ok: true, output: "All done.\nTASK_ERROR: none", usage: { turns: 4 } });
    expect(options.events.map((e) => e.type)).toEqual(["started", "step", "finished"]);
    expect(options.events[1]).toEqual({ type: "step", label: "Bash", tool: "Bash" });
    expect(options.events[2]).toMatchObject({ usage: { turns: 4 } });
  });
});

describe("an interpreter's failure", () => {
  const failing: OutputInterpreter = {
    line() {},
    result: () => ({ failure: { reason: "agent_error", message: "the model API failed" } }),
  };
  const run = (script: string, timeoutMs = 20_000) => {
    const options = recordingOptions({ timeoutMs });
    const outcome = runAgentProcess(
      "claude",
      { command: process.execPath, args: ["-e", script], cwd: dir, env: process.env, interpreter: failing },
      options,
    );
    return outcome.then((o) => ({ outcome: o, events: options.events }));
  };

  it("fails a clean exit and replaces a plain exit code's message", async () => {
    for (const code of [0, 1]) {
      const { outcome, events } = await run(`process.exitCode = ${code}`);
      expect(outcome).toMatchObject({
        ok: false,
        reason: "agent_error",
        message: "the model API failed",
        exitCode: code,
      });
      expect(events.at(-1)).toMatchObject({ type: "finished", ok: false, reason: "agent_error" });
    }
  });

  it("never replaces what Baton saw itself (a timeout)", async () => {
    const { outcome } = await run("setTimeout(() => {}, 10_000)", 200);
    expect(outcome).toMatchObject({ ok: false, reason: "timeout" });
  });
});
