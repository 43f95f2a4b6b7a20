import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { BATON_BIN } from "../support/cli.js";
import { ok, oneTaskRepo } from "./helpers.js";

const FORWARDER = join(import.meta.dirname, "../../bin/baton-hook");
let stopServer: (() => void) | undefined;
afterEach(() => stopServer?.());

function forward(dir: string, event: string, input: object, env: NodeJS.ProcessEnv = {}) {
  const result = spawnSync(FORWARDER, [event], {
    cwd: dir,
    input: JSON.stringify(input),
    encoding: "utf8",
    env: { ...process.env, CLAUDE_PROJECT_DIR: dir, ...env },
  });
  expect(result.status, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as { hookSpecificOutput?: { permissionDecision?: string } };
}

describe("resident hooks (baton init --hooks resident)", () => {
  it("forward to the server SessionStart started, and decide in-process when it is gone", async () => {
    const dir = oneTaskRepo();
    ok(dir, ["init", "--hooks", "resident", "--bin", `node ${BATON_BIN}`]);
    const settings = JSON.parse(readFileSync(join(dir, ".claude/settings.json"), "utf8"));
    expect(settings.hooks.SessionStart[0].hooks[0].command).toBe(`node ${BATON_BIN} hook session-start`);
    expect(settings.hooks.PreToolUse[0].hooks[0].command).toBe(`${FORWARDER} pre-tool-use`);

    const start = spawnSync(process.execPath, [BATON_BIN, "hook", "session-start"], {
      cwd: dir,
      input: JSON.stringify({
        session_id: "cc-1",
        cwd: dir,
        hook_event_name: "SessionStart",
        source: "startup",
      }),
      encoding: "utf8",
    });
    expect(start.stdout.trim()).toBe("{}");
    const portFile = join(dir, ".baton", "serve.port");
    for (let i = 0; i < 100 && !existsSync(portFile); i++) await new Promise((r) => setTimeout(r, 50));
    const port = readFileSync(portFile, "utf8").trim();
    const pid = (await (await fetch(`http://127.0.0.1:${port}/health`)).json()).pid as number;
    stopServer = () => {
      try {
        process.kill(pid, "SIGTERM");
      } catch {
        // already stopped
      }
    };

    const write = {
      session_id: "cc-1",
      transcript_path: "/dev/null",
      cwd: dir,
      hook_event_name: "PreToolUse",
      tool_name: "Bash",
      tool_input: { command: "echo '{}' > specs/state.json" },
      tool_use_id: "toolu_1",
    };
    expect(forward(dir, "pre-tool-use", write).hookSpecificOutput?.permissionDecision).toBe("deny");
    const log = readFileSync(join(dir, ".baton", "logs", "hooks.jsonl"), "utf8")
      .trim()
      .split("\n");
    expect(log.length).toBeGreaterThan(0);

    // The server gone (its port now closed), or never there: the same decision, made in-process.
    stopServer();
    for (let i = 0; i < 100 && existsSync(portFile); i++) await new Promise((r) => setTimeout(r, 50));
    writeFileSync(portFile, `${port}\n`);
    expect(forward(dir, "pre-tool-use", write).hookSpecificOutput?.permissionDecision).toBe("deny");
    expect(
      forward(dir, "pre-tool-use", write, { BATON_SERVE_PORT_FILE: "/nonexistent" }).hookSpecificOutput
        ?.permissionDecision,
    ).toBe("deny");
  });
});
