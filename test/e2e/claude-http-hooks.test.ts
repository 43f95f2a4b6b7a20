import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { runClaude } from "../../src/testing/claude-test-binary.js";
import { say, text, toolResults, toolUse } from "../../src/testing/fake-messages-api.js";
import { startOfflineClaude } from "../../src/testing/offline-claude.js";
import {
  closeSessions,
  expectResearched,
  initialisedRepo,
  located,
  obedientMain,
  researcher,
  session,
} from "./claude-script.js";

const installedPort = (dir: string): number => {
  const manifest = JSON.parse(readFileSync(join(dir, ".baton/init.json"), "utf8")) as {
    hooks: string;
    port: number;
  };
  expect(manifest.hooks).toBe("http");
  return manifest.port;
};

/**
 * `baton init --hooks http --host-sandbox off` (HTTP hooks are the default only where Claude Code's sandbox
 * is off: with it on, Claude Code sends them through its sandbox proxy, which refuses 127.0.0.1): the
 * per-tool-call hooks are HTTP calls to a resident `baton serve` that the SessionStart hook starts, and Claude
 * Code blocks the tool call whenever that server cannot answer.
 */
const httpRepo = () => initialisedRepo(["--hooks", "http", "--host-sandbox", "off"]);
let servers: number[] = [];
afterEach(async () => {
  for (const pid of servers) {
    try {
      process.kill(pid, "SIGTERM");
    } catch {
      // already stopped
    }
  }
  servers = [];
  await closeSessions();
});

/** The same, from a reply function of the fake API, which must answer synchronously. */
function serverPidNow(port: number): number {
  const script = `fetch("http://127.0.0.1:${port}/health").then((r) => r.json()).then((j) => console.log(j.pid))`;
  const pid = Number(execFileSync(process.execPath, ["-e", script], { encoding: "utf8" }).trim());
  servers.push(pid);
  return pid;
}

describe.skipIf(located.path === null)("Claude Code with HTTP hooks (its sandbox off)", () => {
  test("SessionStart starts the server, the honest path records the result, the server ends with the session", {
    timeout: 120_000,
  }, async () => {
    const dir = httpRepo();
    const port = installedPort(dir);
    const { api, run, hookLog } = await session(dir, {
      conversations: [obedientMain("Research of task 1 is recorded."), researcher(dir)],
    });
    expect(hookLog).toContainEqual(
      expect.objectContaining({ event: "session-start", note: "resident server started" }),
    );
    expect(hookLog).toContainEqual(expect.objectContaining({ event: "session-end" }));
    // SessionEnd took the session off the live list; the server started for it stops within seconds.
    let answering = true;
    for (let i = 0; i < 60 && answering; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      answering = await fetch(`http://127.0.0.1:${port}/health`).then(
        () => true,
        () => false,
      );
    }
    expect(answering).toBe(false);
    expect(api.problems(), run.stdout + run.stderr).toEqual([]);
    expectResearched(dir);
    expect(hookLog).toContainEqual(expect.objectContaining({ event: "pre-tool-use", tool: "Agent" }));
    expect(hookLog).toContainEqual(expect.objectContaining({ event: "post-tool-use", tool: "Write" }));
  });

  test("the server dies mid-session: the next tool call is blocked, never let through", {
    timeout: 120_000,
  }, async () => {
    const dir = httpRepo();
    const port = installedPort(dir);
    let blocked = "";
    const { api, env, close } = await startOfflineClaude({
      conversations: [
        {
          name: "main",
          match: { prompt: "Write the proof file" },
          turns: [
            {
              reply: () => {
                process.kill(serverPidNow(port), "SIGKILL");
                return say(
                  toolUse("Bash", { command: "echo made > proof.txt", description: "Write the proof" }),
                );
              },
            },
            {
              reply: ({ request }) => {
                blocked = JSON.stringify(toolResults(request));
                return say(text("The tool call was blocked."));
              },
            },
          ],
        },
      ],
    });
    const run = await runClaude({
      cwd: dir,
      args: [
        "-p",
        "Write the proof file",
        "--output-format",
        "json",
        "--permission-mode",
        "bypassPermissions",
      ],
      env,
      timeoutMs: 90_000,
    });
    await close();
    expect(api.problems(), run.stdout + run.stderr).toEqual([]);
    expect(existsSync(join(dir, "proof.txt"))).toBe(false);
    expect(blocked).toContain('blocking because onFailure is \\"block\\"');
    // Directly, or through the proxy of Claude Code's sandbox (which baton init turns on).
    expect(blocked).toMatch(/ECONNREFUSED|HTTP 502/);
  });

  test("the server a session starts answers only this installation's secret, which Claude Code sends", {
    timeout: 120_000,
  }, async () => {
    const dir = httpRepo();
    const port = installedPort(dir);
    const secret = JSON.parse(readFileSync(join(dir, ".claude/settings.local.json"), "utf8")).env
      .BATON_HOOK_SECRET as string;
    expect(secret).toMatch(/^[0-9a-f]{64}$/);
    // Synchronous, as a reply function must be: the status of a hook call with the headers given.
    const statusWith = (headers: Record<string, string>) => {
      const script = `fetch("http://127.0.0.1:${port}/hooks/post-tool-use", { method: "POST", headers: ${JSON.stringify({ "content-type": "application/json", ...headers })}, body: "{}" }).then((r) => console.log(r.status))`;
      return Number(execFileSync(process.execPath, ["-e", script], { encoding: "utf8" }).trim());
    };
    const statuses: number[] = [];
    const { api, run, hookLog } = await session(
      dir,
      {
        conversations: [
          {
            name: "main",
            turns: [
              {
                reply: () => {
                  serverPidNow(port);
                  statuses.push(statusWith({}), statusWith({ "x-baton-hook-secret": "0".repeat(64) }));
                  statuses.push(statusWith({ "x-baton-hook-secret": secret }));
                  return say(toolUse("Bash", { command: "echo hi", description: "Say hi" }));
                },
              },
              say(text("Done.")),
            ],
          },
        ],
      },
      { prompt: "Say hi" },
    );
    expect(api.problems(), run.stdout + run.stderr).toEqual([]);
    expect(statuses).toEqual([403, 403, 200]);
    // Claude Code's own calls carried it: the tool call was decided and logged, not blocked.
    expect(hookLog).toContainEqual(
      expect.objectContaining({ event: "pre-tool-use", tool: "Bash", decision: "allow" }),
    );
  });
});
