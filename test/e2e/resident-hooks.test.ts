import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { BATON_BIN, waitFor } from "../support/cli.js";
import { ok, oneTaskRepo } from "./helpers.js";

const FORWARDER = join(import.meta.dirname, "../../bin/baton-hook");
let stopServer: (() => void) | undefined;
afterEach(() => stopServer?.());

type Reply = { hookSpecificOutput?: { permissionDecision?: string }; systemMessage?: string };

/** Runs the forwarder as Claude Code does; asynchronously, so that servers in this process can answer it. */
async function forward(
  dir: string,
  event: string,
  input: object,
  env: NodeJS.ProcessEnv = {},
): Promise<Reply> {
  const child = spawn(FORWARDER, [event], {
    cwd: dir,
    env: { ...process.env, CLAUDE_PROJECT_DIR: dir, ...env },
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  child.stdin.end(JSON.stringify(input));
  const [code] = (await once(child, "close")) as [number | null];
  expect(code, stderr).toBe(0);
  return JSON.parse(stdout) as Reply;
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
    // The server is a Node start of its own: on a loaded machine that takes seconds, not milliseconds.
    await waitFor(() => existsSync(portFile));
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
    expect((await forward(dir, "pre-tool-use", write)).hookSpecificOutput?.permissionDecision).toBe("deny");
    const log = readFileSync(join(dir, ".baton", "logs", "hooks.jsonl"), "utf8")
      .trim()
      .split("\n");
    expect(log.length).toBeGreaterThan(0);

    // The server gone (its port now closed), or never there: the same decision, made in-process.
    stopServer();
    await waitFor(() => !existsSync(portFile));
    writeFileSync(portFile, `${port}\n`);
    expect((await forward(dir, "pre-tool-use", write)).hookSpecificOutput?.permissionDecision).toBe("deny");
    expect(
      (await forward(dir, "pre-tool-use", write, { BATON_SERVE_PORT_FILE: "/nonexistent" }))
        .hookSpecificOutput?.permissionDecision,
    ).toBe("deny");
  });

  /** A stand-in for the port's owner: answers each request as `respond` says. */
  async function portOwner(respond: (body: string, response: import("node:http").ServerResponse) => void) {
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (c: Buffer) => chunks.push(c));
      request.on("end", () => respond(Buffer.concat(chunks).toString("utf8"), response));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const closeServer = () => {
      server.closeAllConnections();
      server.close();
    };
    stopServer = closeServer;
    return (server.address() as AddressInfo).port;
  }

  const stateWrite = (dir: string, command = "echo '{}' > specs/state.json") => ({
    session_id: "cc-1",
    transcript_path: "/dev/null",
    cwd: dir,
    hook_event_name: "PreToolUse",
    tool_name: "Bash",
    tool_input: { command },
    tool_use_id: "toolu_1",
  });

  it("send the input byte for byte and print a Baton reply as it came", async () => {
    const dir = oneTaskRepo();
    let received = "";
    const port = await portOwner((body, response) => {
      received = body;
      const reply = JSON.stringify({ systemMessage: "from the server: ünïcödé ✓" });
      response.writeHead(200, { "x-baton-hook": "1", "content-length": Buffer.byteLength(reply) });
      response.end(reply);
    });
    writeFileSync(join(dir, "port"), `${port}\n`);
    const input = stateWrite(dir, "echo 'naïve – ✓ 日本' > notes.txt");
    const reply = await forward(dir, "pre-tool-use", input, { BATON_SERVE_PORT_FILE: join(dir, "port") });
    expect(JSON.parse(received)).toEqual(input);
    expect(reply).toEqual({ systemMessage: "from the server: ünïcödé ✓" });
    // A Write of a large file with blank lines and multi-byte text reaches the server whole (the forwarder
    // reads its input in blocks, which must stop at EOF and keep every byte).
    const content = `${"line – ✓ 日本\n\n".repeat(20_000)}\n\n`;
    const big = { ...input, tool_name: "Write", tool_input: { file_path: join(dir, "big.txt"), content } };
    await forward(dir, "pre-tool-use", big, { BATON_SERVE_PORT_FILE: join(dir, "port") });
    expect(received).toBe(JSON.stringify(big));
  });

  it("decide in-process when the port answers but is not Baton, fails, or hangs", async () => {
    const dir = oneTaskRepo();
    const env = { BATON_SERVE_PORT_FILE: join(dir, "port"), BATON_HOOK_FORWARD_TIMEOUT: "1" };
    const owners: Array<(body: string, response: import("node:http").ServerResponse) => void> = [
      // something else on a port a dead server left in its file: a 200 that would read as "allow"
      (_body, response) => response.end("{}"),
      // Baton's server failing inside its handler
      (_body, response) => {
        response.writeHead(500, { "x-baton-hook": "1" });
        response.end('{"error":"boom"}');
      },
      // a server that takes the request and never answers
      () => {},
    ];
    for (const owner of owners) {
      const port = await portOwner(owner);
      writeFileSync(join(dir, "port"), `${port}\n`);
      expect(
        (await forward(dir, "pre-tool-use", stateWrite(dir), env)).hookSpecificOutput?.permissionDecision,
      ).toBe("deny");
      stopServer?.();
    }
  });
});
