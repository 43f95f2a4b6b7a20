import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { ReturnMetadata } from "../engine/gate-out/return-metadata.js";
import {
  type FakeMessagesApi,
  promptOf,
  type ScriptInput,
  say,
  systemBlocks,
  text,
  toolNames,
  toolResults,
  toolUse,
} from "../testing/fake-messages-api.js";
import { startOfflineClaude } from "../testing/offline-claude.js";
import { requireUnderCi } from "../testing/requirements.js";
import { recordingOptions } from "../testing/run-request.js";
import { ClaudeRunner, type ClaudeRunnerOptions } from "./claude.js";
import { locateBundledClaude } from "./claude-binary.js";
import type { AgentDefinition, DelegationContext, RunRequest } from "./runner-types.js";

/** The claude runner with the real Claude Code binary against the fake Messages API, offline. */

const located = locateBundledClaude();
requireUnderCi("the Claude Code binary", located.path === null ? located.reason : null);
if (located.path === null) console.warn(`claude runner end-to-end tests skipped: ${located.reason}`);

const TEST_TIMEOUT_MS = 20_000;
const RUN_TIMEOUT_MS = 15_000;
const REPORT_PATH = "specs/1_demo/reports/research-001.md";
const META_PATH = "specs/1_demo/.return-meta.json";
const SESSION = "sess_1773703759_e2e001";

const AGENT: AgentDefinition = {
  name: "baton-researcher",
  description: "Researches one task and writes a report plus return metadata.",
  systemPrompt: "BATON-RESEARCHER-BODY: You research one task and write the report and metadata it asks for.",
  tools: ["Read", "Write"],
  model: "haiku",
};

const CONTEXT: DelegationContext = {
  session_id: SESSION,
  delegation_depth: 1,
  delegation_path: ["baton", "research", "baton-researcher"],
  operation: "research",
  task_context: { task_number: 1, task_name: "demo", description: "A demo task", language: "general" },
  task_folder: "specs/1_demo",
  metadata_file_path: META_PATH,
};

/** Worded like the engine's prompt: the exact paths and the session id in text and as JSON. */
function delegationPrompt(context: DelegationContext): string {
  return [
    `Baton delegates research of task 1 to you.`,
    "",
    `Task 1: Demo`,
    `Session id: ${context.session_id}`,
    `Task folder: ${context.task_folder}`,
    `Write the report to: ${REPORT_PATH}`,
    `Write the return metadata, last, to: ${context.metadata_file_path}`,
    "",
    "Delegation context (JSON):",
    JSON.stringify(context, null, 2),
  ].join("\n");
}

const REPORT = [
  "# Research Report: Task 1 Demo",
  "",
  "- **Task**: 1 - demo",
  "- **Sources**: the repository",
  "",
  "## Summary",
  "The demo task needs a research report and return metadata so that Baton's GATE OUT can verify it.",
  "",
  "## Findings",
  "- The task folder is specs/1_demo; reports live in its reports/ folder.",
  "- The metadata file names the session id of the delegation that asked for it.",
  "",
  "## Recommendations",
  "- Plan next.",
  "",
].join("\n");

/** What the scripted model reads from the prompt, as a real agent would. */
function fromPrompt(prompt: string, label: string): string {
  const match = new RegExp(`${label}: (\\S+)`).exec(prompt);
  if (!match) throw new Error(`the prompt has no "${label}:" line`);
  return match[1]!;
}

let cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

async function setup(
  script: (repo: string) => ScriptInput,
  options: ClaudeRunnerOptions = {},
  agent: AgentDefinition = AGENT,
) {
  const repo = mkdtempSync(join(tmpdir(), "baton-claude-runner-"));
  execFileSync("git", ["init", "-q"], { cwd: repo });
  const { api, env, close } = await startOfflineClaude(script(repo));
  cleanups.push(close, () => rmSync(repo, { recursive: true, force: true }));
  const runner = new ClaudeRunner({ binary: located.path!, ...options }, { baseEnv: env });
  const request: RunRequest = {
    cwd: repo,
    prompt: delegationPrompt(CONTEXT),
    context: CONTEXT,
    agent,
  };
  return { repo, api, runner, request };
}

/** Turn 0 of every scenario: the report, written where the prompt says. */
const writeReport = (repo: string) => ({
  reply: ({ request }: { request: Parameters<typeof promptOf>[0] }) =>
    say(
      text("Researching task 1."),
      toolUse("Write", {
        file_path: join(repo, fromPrompt(promptOf(request), "Write the report to")),
        content: REPORT,
      }),
    ),
});

function agentRequestChecks(api: FakeMessagesApi, agent = AGENT) {
  const [first] = api.messageRequests();
  // The agent definition reached the model: its body is the system prompt, its tools and model apply.
  expect(systemBlocks(first!.body!)[2]).toBe(agent.systemPrompt);
  expect(first!.body!.model).toBe("claude-haiku-5-5");
  expect(toolNames(first!.body!)).toEqual(expect.arrayContaining(["Read", "Write"]));
  expect(toolNames(first!.body!)).not.toContain("Bash");
  expect(first!.prompt).toContain(SESSION);
}

const title = located.path === null ? `claude runner: SKIPPED, ${located.reason}` : "claude runner";

describe.skipIf(located.path === null)(title, () => {
  test("runs the agent, which writes its report and return metadata", {
    timeout: TEST_TIMEOUT_MS,
  }, async () => {
    const { api, repo, runner, request } = await setup((repo) => ({
      conversations: [
        {
          name: "research",
          match: { prompt: "Baton delegates research of task 1" },
          turns: [
            writeReport(repo),
            {
              reply: ({ request }) => {
                const prompt = promptOf(request);
                const [result] = toolResults(request);
                if (result?.isError !== false)
                  return say(text(`TASK_ERROR: report not written: ${result?.content}`));
                const meta = {
                  status: "researched",
                  summary: "The demo needs a report and metadata.",
                  artifacts: [
                    { type: "research", path: fromPrompt(prompt, "Write the report to"), summary: "Demo" },
                  ],
                  metadata: {
                    session_id: fromPrompt(prompt, "Session id"),
                    agent_type: "baton-researcher",
                    delegation_depth: 1,
                    delegation_path: ["baton", "research", "baton-researcher"],
                  },
                };
                const path = join(repo, fromPrompt(prompt, "Write the return metadata, last, to"));
                return say(toolUse("Write", { file_path: path, content: JSON.stringify(meta, null, 2) }));
              },
            },
            say(text(`Research complete: ${REPORT_PATH}`)),
          ],
        },
      ],
    }));
    const options = recordingOptions({ timeoutMs: RUN_TIMEOUT_MS });

    const outcome = await runner.run(request, options);

    expect(outcome, `${outcome.stderr}\n${outcome.output}`).toMatchObject({ ok: true, exitCode: 0 });
    expect(api.problems()).toEqual([]);
    const report = readFileSync(join(repo, REPORT_PATH), "utf8");
    expect(report).toBe(REPORT);
    expect(Buffer.byteLength(report)).toBeGreaterThan(300);
    const meta = ReturnMetadata.parse(JSON.parse(readFileSync(join(repo, META_PATH), "utf8")));
    expect(meta.metadata.session_id).toBe(SESSION);
    expect(meta.artifacts).toEqual([expect.objectContaining({ type: "research", path: REPORT_PATH })]);

    expect(outcome.output).toBe(`Researching task 1.\nResearch complete: ${REPORT_PATH}`);
    expect(outcome.usage).toEqual({
      inputTokens: expect.any(Number),
      outputTokens: expect.any(Number),
      costUsd: expect.any(Number),
      turns: 3,
      durationMs: expect.any(Number),
    });
    expect(outcome.usage!.inputTokens).toBeGreaterThan(1000);
    expect(outcome.usage!.outputTokens).toBeGreaterThan(0);
    expect(outcome.usage!.costUsd).toBeGreaterThan(0);
    expect(outcome.usage!.durationMs).toBeGreaterThan(0);

    const steps = options.events.filter((e) => e.type === "step");
    expect(steps).toEqual([
      { type: "step", label: `Write ${REPORT_PATH}`, tool: "Write" },
      { type: "step", label: `Write ${META_PATH}`, tool: "Write" },
    ]);
    expect(options.events[0]).toEqual({ type: "started", runner: "claude", pid: outcome.pid });
    expect(options.events.at(-1)).toMatchObject({ type: "finished", ok: true, usage: outcome.usage });
    agentRequestChecks(api);
    expect(api.messageRequests()).toHaveLength(3);
  });

  test("an agent that stops without metadata still ends ok (GATE OUT judges it)", {
    timeout: TEST_TIMEOUT_MS,
  }, async () => {
    // Bypass mode and isolated settings this time, the other way the runner may be configured; and an agent
    // file longer than one argument or environment string may be (128 KiB).
    const long = {
      ...AGENT,
      systemPrompt: `${AGENT.systemPrompt}\n${"Our house style, at length. ".repeat(6000)}`,
    };
    const { api, repo, runner, request } = await setup(
      (repo) => ({
        conversations: [{ turns: [writeReport(repo), say(text("The report is written."))] }],
      }),
      { permissionMode: "bypassPermissions", settingSources: [], env: { IS_SANDBOX: "1" } },
      long,
    );

    const outcome = await runner.run(request, recordingOptions({ timeoutMs: RUN_TIMEOUT_MS }));

    expect(outcome, JSON.stringify(outcome).slice(0, 600)).toMatchObject({
      ok: true,
      exitCode: 0,
      usage: { turns: 2 },
    });
    expect(api.problems()).toEqual([]);
    expect(existsSync(join(repo, REPORT_PATH))).toBe(true);
    expect(existsSync(join(repo, META_PATH))).toBe(false);
    expect(outcome.output).toBe("Researching task 1.\nThe report is written.");
    agentRequestChecks(api, long);
  });

  test("an API error fails the run with Claude's message", { timeout: TEST_TIMEOUT_MS }, async () => {
    const { api, runner, request } = await setup((repo) => ({
      conversations: [
        {
          turns: [
            writeReport(repo),
            {
              error: {
                status: 529,
                type: "overloaded_error",
                message: "FAKE-OVERLOADED",
                shouldRetry: false,
              },
            },
          ],
        },
      ],
    }));
    const options = recordingOptions({ timeoutMs: RUN_TIMEOUT_MS });

    const outcome = await runner.run(request, options);

    expect(outcome).toMatchObject({ ok: false, reason: "agent_error", usage: { turns: 2 } });
    expect(outcome.ok || outcome.message).toMatch(
      /^Claude Code reported an error \(api_error, HTTP 529\): API Error: 529 FAKE-OVERLOADED/,
    );
    expect(outcome.output).toContain("API Error: 529 FAKE-OVERLOADED");
    expect(api.messageRequests()).toHaveLength(2);
    expect(options.events.at(-1)).toMatchObject({ type: "finished", ok: false, reason: "agent_error" });
  });

  test("a turn slower than the timeout stops the run and its whole process group", {
    timeout: TEST_TIMEOUT_MS,
  }, async () => {
    const { api, runner, request } = await setup(() => ({
      conversations: [{ turns: [{ content: [text("too late")], delayMs: 30_000 }] }],
    }));
    // Stopped mid-request: the binary has sent turn 0 and waits for the answer. Under a loaded suite it
    // takes several seconds to start and send it, so the limit leaves room for that.
    const options = recordingOptions({ timeoutMs: 10_000 });

    const outcome = await runner.run(request, options);

    expect(outcome).toMatchObject({ ok: false, reason: "timeout" });
    expect(api.messageRequests()).toHaveLength(1);
    expect(outcome.pid).toEqual(expect.any(Number));
    expect(groupAlive(outcome.pid!)).toBe(false);
    expect(options.events.at(-1)).toMatchObject({ type: "finished", ok: false, reason: "timeout" });
  });
});

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
