import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { type ClaudeRun, locateClaudeBinary, runClaude } from "./claude-test-binary.js";
import {
  type FakeMessagesApi,
  type ScriptInput,
  say,
  systemBlocks,
  text,
  toolNames,
  toolResults,
  toolUse,
} from "./fake-messages-api.js";
import { startOfflineClaude } from "./offline-claude.js";

/** The real Claude Code binary against the fake API, offline, in a temp git repository. */

const located = locateClaudeBinary();
if (located.path === null) console.warn(`Claude Code end-to-end tests skipped: ${located.reason}`);

// Each run takes about a second; the kill timer stays below the test timeout so a hung binary is
// killed by us (with its process group) rather than left running after vitest gives up.
const RUN_TIMEOUT_MS = 25_000;
const TEST_TIMEOUT_MS = 30_000;

const REPORT_PATH = "specs/1_demo/reports/research-001.md";
const META_PATH = "specs/1_demo/.return-meta.json";
const REPORT =
  "# Research Report: Task 1\n\n## Findings\n\n- The demo needs a report.\n- It also needs metadata.\n";

const RESEARCHER_MD = `---
name: researcher
description: RESEARCHER-DESC Researches a task and writes its report.
tools: Read, Write
model: haiku
---
RESEARCHER-SYSTEM-PROMPT: You research one task and write the report it asks for.
`;

let cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

/** A temp git repo, an empty config dir and a fake API whose script may name files in the repo. */
async function setup(
  script: (repo: string) => ScriptInput,
): Promise<{ repo: string; api: FakeMessagesApi; env: Record<string, string> }> {
  const repo = mkdtempSync(join(tmpdir(), "baton-claude-e2e-"));
  execFileSync("git", ["init", "-q"], { cwd: repo });
  const offline = await startOfflineClaude(script(repo));
  cleanups.push(offline.close, () => rmSync(repo, { recursive: true, force: true }));
  return { repo, api: offline.api, env: offline.env };
}

function claude(repo: string, env: Record<string, string>, prompt: string, ...flags: string[]) {
  return runClaude({
    cwd: repo,
    env,
    timeoutMs: RUN_TIMEOUT_MS,
    binary: located.path!,
    // bypassPermissions as root needs IS_SANDBOX=1, which claudeOfflineEnv sets (contract 1.2).
    args: [
      "-p",
      prompt,
      "--output-format",
      "stream-json",
      "--verbose",
      "--permission-mode",
      "bypassPermissions",
      ...flags,
    ],
  });
}

// biome-ignore lint/suspicious/noExplicitAny: stream-json lines have many shapes; tests assert on them directly
type Json = Record<string, any>;

/** The final stream-json line, checked to be a successful result; the run's output is shown otherwise. */
function successResult(run: ClaudeRun): Json {
  const context = `exit ${run.code}${run.timedOut ? " (timed out)" : ""}\nstderr: ${run.stderr}\nstdout: ${run.stdout.slice(-3000)}`;
  expect(run.code, context).toBe(0);
  const last = run.messages.at(-1) as Json | undefined;
  expect(last, context).toMatchObject({ type: "result", subtype: "success", is_error: false });
  return last!;
}

const title =
  located.path === null ? `real Claude Code binary: SKIPPED, ${located.reason}` : "real Claude Code binary";

describe.skipIf(located.path === null)(title, () => {
  test("the main agent writes a report and return metadata through Write calls", {
    timeout: TEST_TIMEOUT_MS,
  }, async () => {
    const meta = `${JSON.stringify(
      {
        status: "researched",
        artifacts: [{ type: "research", path: REPORT_PATH, summary: "Demo findings" }],
        metadata: {
          session_id: "sess_1_demo",
          agent_type: "main",
          delegation_depth: 0,
          delegation_path: ["e2e"],
        },
      },
      null,
      2,
    )}\n`;
    const { api, env, repo } = await setup((repo) => ({
      conversations: [
        {
          name: "research",
          match: { prompt: "Research task 1" },
          turns: [
            say(
              text("Writing the report."),
              toolUse("Write", { file_path: join(repo, REPORT_PATH), content: REPORT }),
            ),
            {
              // Only write the metadata when the report really landed, as a real agent would.
              reply: ({ request }) => {
                const [result] = toolResults(request);
                return result?.name === "Write" && !result.isError
                  ? say(toolUse("Write", { file_path: join(repo, META_PATH), content: meta }))
                  : say(text(`REPORT WRITE FAILED: ${result?.content}`));
              },
            },
            say(text("Research complete: specs/1_demo/reports/research-001.md")),
          ],
        },
      ],
    }));

    const run = await claude(repo, env, "Research task 1 (demo) and write the report.");

    const result = successResult(run);
    expect(api.problems()).toEqual([]);
    expect(readFileSync(join(repo, REPORT_PATH), "utf8")).toBe(REPORT);
    expect(readFileSync(join(repo, META_PATH), "utf8")).toBe(meta);
    expect(result["result"]).toBe("Research complete: specs/1_demo/reports/research-001.md");
    expect(result["num_turns"]).toBe(3);
    expect(result["usage"].input_tokens).toBeGreaterThan(1000);
    expect(result["usage"].output_tokens).toBeGreaterThan(0);
    expect(result["total_cost_usd"]).toBeGreaterThan(0);
    expect(run.messages[0]).toMatchObject({ type: "system", subtype: "init", cwd: repo });

    // With non-essential traffic disabled the only calls are the three model turns (contract 1.1).
    expect(api.requests.map((r) => `${r.method} ${r.path}`)).toEqual(Array(3).fill("POST /v1/messages"));
    const [first, second] = api.messageRequests();
    expect(first).toMatchObject({
      prompt: "Research task 1 (demo) and write the report.",
      subagent: false,
      turn: 0,
    });
    expect(first!.headers["x-api-key"]).toBe("sk-test");
    expect(first!.body!.model).toBe("claude-opus-5-5");
    expect(toolNames(first!.body!)).toEqual(expect.arrayContaining(["Agent", "Bash", "Read", "Write"]));
    expect(toolResults(second!.body!)).toEqual([
      expect.objectContaining({
        name: "Write",
        isError: false,
        content: expect.stringContaining("File created successfully"),
      }),
    ]);
  });

  test("a project agent run with --agent gets its .md body as the system prompt", {
    timeout: TEST_TIMEOUT_MS,
  }, async () => {
    // `--agent <name>` makes the agent the session's main thread (CLI help: "Agent for the current
    // session"), the most direct way to run one named agent headless; the request carries the agent's
    // body as the system prompt, its tools and its model. Project agents load from .claude/agents
    // under the default setting sources (contract 2).
    const { api, env, repo } = await setup((repo) => ({
      conversations: [
        {
          match: { system: "RESEARCHER-SYSTEM-PROMPT" },
          turns: [
            say(toolUse("Write", { file_path: join(repo, REPORT_PATH), content: REPORT })),
            say(text("RESEARCHER-DONE")),
          ],
        },
      ],
    }));
    mkdirSync(join(repo, ".claude/agents"), { recursive: true });
    writeFileSync(join(repo, ".claude/agents/researcher.md"), RESEARCHER_MD);

    const run = await claude(repo, env, "Research task 1.", "--agent", "researcher");

    expect(successResult(run)["result"]).toBe("RESEARCHER-DONE");
    expect(api.problems()).toEqual([]);
    expect(readFileSync(join(repo, REPORT_PATH), "utf8")).toBe(REPORT);
    const [first] = api.messageRequests();
    expect(systemBlocks(first!.body!)[2]).toBe(
      "RESEARCHER-SYSTEM-PROMPT: You research one task and write the report it asks for.",
    );
    expect(first!.body!.model).toBe("claude-haiku-5-5");
    expect(toolNames(first!.body!)).toEqual(expect.arrayContaining(["Read", "Write"]));
    expect(toolNames(first!.body!)).not.toContain("Bash");
    expect(run.messages[0]).toMatchObject({
      subtype: "init",
      model: "claude-haiku-5-5",
      tools: ["Read", "Write"],
    });
  });

  test("the main agent delegates to the project agent through the Agent tool", {
    timeout: TEST_TIMEOUT_MS,
  }, async () => {
    // The documented sub-agent path (contract 7): Agent{subagent_type, run_in_background: false} runs
    // the agent in the foreground, so its final text comes back as the Agent tool_result.
    const { api, env, repo } = await setup((repo) => ({
      conversations: [
        {
          name: "main",
          match: { prompt: "Delegate task 1" },
          turns: [
            say(
              toolUse("Agent", {
                description: "Research task 1",
                prompt: "SUBTASK: research task 1 and write the report",
                subagent_type: "researcher",
                run_in_background: false,
              }),
            ),
            {
              reply: ({ request }) =>
                say(text(`MAIN-DONE after: ${toolResults(request)[0]?.content ?? "nothing"}`)),
            },
          ],
        },
        {
          name: "researcher",
          match: { subagent: true, prompt: "SUBTASK: research task 1" },
          turns: [
            say(toolUse("Write", { file_path: join(repo, REPORT_PATH), content: REPORT })),
            say(text("RESEARCHER-REPORT: wrote the report")),
          ],
        },
      ],
    }));
    mkdirSync(join(repo, ".claude/agents"), { recursive: true });
    writeFileSync(join(repo, ".claude/agents/researcher.md"), RESEARCHER_MD);

    const run = await claude(repo, env, "Delegate task 1 to the researcher.");

    const result = successResult(run);
    expect(api.problems()).toEqual([]);
    expect(readFileSync(join(repo, REPORT_PATH), "utf8")).toBe(REPORT);
    expect(result["result"]).toContain("RESEARCHER-REPORT: wrote the report");
    expect(api.messageRequests().map((r) => `${r.conversation}:${r.turn}`)).toEqual([
      "main:0",
      "researcher:0",
      "researcher:1",
      "main:1",
    ]);
    const sub = api.messageRequests()[1]!;
    expect(sub.subagent).toBe(true);
    expect(sub.body!.model).toBe("claude-haiku-5-5");
    expect(toolNames(sub.body!).sort()).toEqual(["Read", "Write"]);
    expect(systemBlocks(sub.body!)[0]).toContain("cc_is_subagent=true");
    // The .md body opens the agent's system block; Claude Code appends a fixed harness suffix.
    expect(systemBlocks(sub.body!)[2]).toMatch(/^RESEARCHER-SYSTEM-PROMPT: You research one task/);
    // The main thread was told about the agent in its role:"system" message.
    expect(JSON.stringify(api.messageRequests()[0]!.body!.messages)).toContain(
      "researcher: RESEARCHER-DESC Researches a task and writes its report.",
    );
  });
});
