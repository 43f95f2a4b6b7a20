import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { ConfigError } from "../shared/index.js";
import { recordingOptions, sampleRunRequest } from "../testing/run-request.js";
import { ClaudeRunner, claudeInvocation } from "./claude.js";
import { createRunner } from "./factory.js";
import type { AgentDefinition } from "./runner-types.js";

const dir = mkdtempSync(join(tmpdir(), "baton-claude-runner-unit-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const AGENT: AgentDefinition = {
  name: "baton-researcher",
  description: "Researches one task.",
  systemPrompt: "You research one task.\nWrite the report.",
  tools: ["Read", "Write", "Bash(git log:*)"],
  model: "sonnet",
};
const request = sampleRunRequest(dir, { agent: AGENT });
const AGENTS_JSON = JSON.stringify({
  "baton-researcher": {
    description: "Researches one task.",
    prompt: "You research one task.\nWrite the report.",
    tools: ["Read", "Write", "Bash(git log:*)"],
    model: "sonnet",
  },
});

describe("claudeInvocation", () => {
  test("default mode: the agent defined and selected, its tools pre-approved, extra args last", () => {
    expect(claudeInvocation({ args: ["--max-turns", "40"] }, request, "/tmp/x/agents.json")).toEqual({
      stdin: request.prompt,
      agents: AGENTS_JSON,
      args: [
        "-p",
        "--output-format",
        "stream-json",
        "--verbose",
        "--agents",
        "/tmp/x/agents.json",
        "--agent",
        "baton-researcher",
        "--allowedTools",
        "Read,Write,Bash(git log:*)",
        "--max-turns",
        "40",
      ],
    });
  });

  test("bypassPermissions needs no allow list; setting sources may be emptied", () => {
    const { args } = claudeInvocation(
      { permissionMode: "bypassPermissions", settingSources: [] },
      request,
      "/tmp/x/agents.json",
    );
    expect(args.slice(4)).toEqual([
      "--setting-sources",
      "",
      "--agents",
      "/tmp/x/agents.json",
      "--agent",
      "baton-researcher",
      "--permission-mode",
      "bypassPermissions",
    ]);
  });

  test("other modes keep the allow list", () => {
    const { args } = claudeInvocation(
      { permissionMode: "acceptEdits", settingSources: ["project"] },
      request,
    );
    expect(args).toEqual(
      expect.arrayContaining([
        "--permission-mode",
        "acceptEdits",
        "--allowedTools",
        "--setting-sources",
        "project",
      ]),
    );
  });

  test("an agent without a body is Claude's own, picked by name; no agent, no agent flags", () => {
    const named = claudeInvocation({}, { ...request, agent: { name: "reviewer", model: "haiku" } });
    expect(named.args.slice(4)).toEqual(["--agent", "reviewer", "--model", "haiku"]);
    const plain = claudeInvocation({}, { ...request, agent: undefined });
    expect(plain.args).toEqual(["-p", "--output-format", "stream-json", "--verbose"]);
  });

  test("a description is made up when the agent has none (--agents requires one)", () => {
    const { agents } = claudeInvocation({}, { ...request, agent: { name: "x", systemPrompt: "Body" } });
    expect(JSON.parse(agents!)).toEqual({
      x: { description: "Baton agent x", prompt: "Body" },
    });
  });

  test("the prompt, whatever it holds, goes through stdin and never into argv", () => {
    for (const prompt of ["--help me", "é".repeat(60_000), "a".repeat(300_000), request.prompt]) {
      const invocation = claudeInvocation({}, { ...request, prompt });
      expect(invocation.stdin).toBe(prompt);
      expect(invocation.args.some((a) => a.includes(prompt))).toBe(false);
      expect(invocation.args.slice(0, 2)).toEqual(["-p", "--output-format"]);
    }
  });

  test("the agent's body, whatever its size, goes in the definitions file and never into argv", () => {
    const body = `You research.\n${"A long house style. ".repeat(20_000)}`;
    const invocation = claudeInvocation(
      {},
      { ...request, agent: { ...AGENT, systemPrompt: body } },
      "/x.json",
    );
    expect(JSON.parse(invocation.agents!)["baton-researcher"].prompt).toBe(body);
    expect(invocation.args.some((a) => a.includes("A long house style"))).toBe(false);
    expect(invocation.args).toContain("/x.json");
  });
});

describe("configuration", () => {
  test("createRunner builds a claude runner; bad options name the field", () => {
    const runner = createRunner({ type: "claude", permissionMode: "bypassPermissions" });
    expect(runner).toBeInstanceOf(ClaudeRunner);
    expect(runner.kind).toBe("claude");
    expect(() => createRunner({ type: "claude", permissionMode: "yolo" } as never)).toThrow(ConfigError);
    expect(() => new ClaudeRunner({ binray: "claude" })).toThrow(/claude runner: .*binray/);
    expect(() => new ClaudeRunner({ env: { "BAD-NAME": "1" } })).toThrow(ConfigError);
  });
});

/** A stand-in binary: records argv, stdin and env, prints the lines it is given, exits as told. */
const FAKE = join(dir, "fake-claude.mjs");
writeFileSync(
  FAKE,
  `#!${process.execPath}
import { readFileSync, writeFileSync } from "node:fs";
const stdin = (() => { try { return readFileSync(0, "utf8"); } catch { return null; } })();
const at = process.argv.indexOf("--agents");
const agents = at > 0 ? readFileSync(process.argv[at + 1], "utf8") : null;
writeFileSync(process.env.FAKE_RECORD, JSON.stringify({ argv: process.argv.slice(2), stdin, agents, env: process.env }));
for (const line of JSON.parse(process.env.FAKE_LINES ?? "[]")) console.log(line);
if (process.env.FAKE_STDERR) console.error(process.env.FAKE_STDERR);
process.exitCode = Number(process.env.FAKE_EXIT ?? 0);
`,
);
chmodSync(FAKE, 0o755);

async function runFake(lines: object[], extra: Record<string, string> = {}) {
  const record = join(dir, `record-${Math.random().toString(36).slice(2)}.json`);
  const runner = new ClaudeRunner({
    binary: FAKE,
    env: { FAKE_RECORD: record, FAKE_LINES: JSON.stringify(lines.map((l) => JSON.stringify(l))), ...extra },
  });
  const options = recordingOptions();
  const outcome = await runner.run(request, options);
  const seen = JSON.parse(readFileSync(record, "utf8")) as {
    argv: string[];
    stdin: string | null;
    agents: string | null;
    env: Record<string, string>;
  };
  return { outcome, events: options.events, seen };
}

describe("running a stand-in binary", () => {
  test("is_error with exit code 0 still fails the run", async () => {
    const { outcome, events, seen } = await runFake([
      {
        type: "assistant",
        message: { content: [{ type: "text", text: "Trying." }] },
        parent_tool_use_id: null,
      },
      { type: "result", subtype: "success", is_error: true, result: "API Error: 500 boom", num_turns: 1 },
    ]);
    expect(outcome).toMatchObject({
      ok: false,
      reason: "agent_error",
      exitCode: 0,
      message: "Claude Code reported an error: API Error: 500 boom",
      output: "Trying.",
      usage: { turns: 1 },
    });
    expect(events.at(-1)).toMatchObject({ type: "finished", ok: false, reason: "agent_error", exitCode: 0 });
    // Arguments arrive verbatim (no shell), the prompt whole on stdin (never in argv), with the delegation
    // and the configured env in the environment.
    const file = seen.argv[seen.argv.indexOf("--agents") + 1]!;
    expect(seen.argv).toEqual(claudeInvocation({}, request, file).args);
    expect(seen.argv.join(" ")).not.toContain("add a widget");
    // The agent's definition came in a file only this user reads, gone once the run ended.
    expect(seen.agents).toBe(AGENTS_JSON);
    expect(existsSync(file)).toBe(false);
    expect(seen.env["BATON_SESSION_ID"]).toBe(request.context.session_id);
    expect(seen.stdin).toBe(request.prompt);
  });

  test("an exit before any result says why, from stderr", async () => {
    const { outcome } = await runFake([], {
      FAKE_EXIT: "1",
      FAKE_STDERR: "--agent 'baton-researcher' not found. Available agents: claude",
    });
    expect(outcome).toMatchObject({
      ok: false,
      reason: "exit",
      message: "exited with code 1: --agent 'baton-researcher' not found. Available agents: claude",
    });
  });

  test("root refusing bypassPermissions gets the IS_SANDBOX hint", async () => {
    const { outcome } = await runFake([], {
      FAKE_EXIT: "1",
      FAKE_STDERR:
        "--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons",
    });
    expect(outcome.ok || outcome.message).toMatch(
      /root\/sudo .* add "IS_SANDBOX": "1" to the claude runner's env/,
    );
  });

  test("a missing binary is spawn_failed with how to install or configure", async () => {
    const runner = new ClaudeRunner({ binary: join(dir, "no-such-claude") });
    const options = recordingOptions();
    const outcome = await runner.run(request, options);
    expect(outcome).toMatchObject({ ok: false, reason: "spawn_failed", pid: null });
    expect(outcome.ok || outcome.message).toContain('(runner option "binary") does not exist');
    expect(options.events).toEqual([expect.objectContaining({ type: "finished", reason: "spawn_failed" })]);
  });
});
