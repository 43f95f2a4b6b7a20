import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { loadConfig } from "../../config/index.js";
import { agentFileReaders } from "../../hosts/index.js";
import { ClaudeRunner, locateBundledClaude } from "../../runners/index.js";
import { addTask, loadErrors, mutateStore, readStore } from "../../state/index.js";
import { promptOf, type ScriptInput, say, text, toolUse } from "../../testing/fake-messages-api.js";
import { startOfflineClaude } from "../../testing/offline-claude.js";
import { requireUnderCi } from "../../testing/requirements.js";
import { tempStore } from "../../testing/store-fixture.js";
import { runOperation } from "./headless-run.js";

/** `baton research` with the real Claude Code binary, offline against the scripted fake Messages API. */
const located = locateBundledClaude();
requireUnderCi("the Claude Code binary", located.path === null ? located.reason : null);

const REPORT = `# Research Report: Parser crash\n\n## Findings\n${"- parse() reads tokens[0] before checking the list is non-empty (src/parser.ts:12).\n".repeat(6)}`;

function fromPrompt(prompt: string, label: string): string {
  const match = new RegExp(`${label}: (\\S+)`).exec(prompt);
  if (!match) throw new Error(`the prompt has no "${label}:" line`);
  return match[1]!;
}

let cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

async function research(script: (repo: string) => ScriptInput) {
  const t = await tempStore({ active: 0 });
  execFileSync("git", ["config", "user.email", "t@example.com"], { cwd: t.dir });
  execFileSync("git", ["config", "user.name", "Baton Test"], { cwd: t.dir });
  await mutateStore(t.ctx, { command: "t" }, (tx) =>
    addTask(tx, { title: "Parser crash", language: "general" }),
  );
  const { api, env, close } = await startOfflineClaude(script(t.dir));
  cleanups.push(t.cleanup, close);
  const runner = new ClaudeRunner({ binary: located.path! }, { baseEnv: env });
  const report = await runOperation({
    agentFiles: agentFileReaders(),
    config: await loadConfig(t.dir),
    operation: "research",
    taskNumber: 1,
    runner,
  });
  return { t, api, report };
}

const writeReport = (repo: string) => ({
  reply: ({ request }: { request: Parameters<typeof promptOf>[0] }) =>
    say(
      text("Reading the parser."),
      toolUse("Write", {
        file_path: join(repo, fromPrompt(promptOf(request), "Write the report to")),
        content: REPORT,
      }),
    ),
});

describe.skipIf(located.path === null)(
  `baton research with Claude Code${located.path === null ? `: SKIPPED, ${located.reason}` : ""}`,
  () => {
    test("the agent writes its report and metadata through Write calls, and the operation completes", {
      timeout: 30_000,
    }, async () => {
      const { t, api, report } = await research((repo) => ({
        conversations: [
          {
            match: { prompt: "Baton delegates research of task 1" },
            turns: [
              writeReport(repo),
              {
                reply: ({ request }) => {
                  const prompt = promptOf(request);
                  const meta = {
                    status: "researched",
                    summary: "tokens[0] is read before the empty check",
                    artifacts: [
                      {
                        type: "research",
                        path: fromPrompt(prompt, "Write the report to"),
                        summary: "Root cause",
                      },
                    ],
                    metadata: {
                      session_id: fromPrompt(prompt, "Session id"),
                      agent_type: "baton-researcher",
                    },
                  };
                  return say(
                    toolUse("Write", {
                      file_path: join(repo, fromPrompt(prompt, "Write the return metadata, last, to")),
                      content: JSON.stringify(meta),
                    }),
                  );
                },
              },
              say(text("Research complete.")),
            ],
          },
        ],
      }));
      expect(api.problems()).toEqual([]);
      expect(report.result).toEqual({ ok: true, outcome: "done", committed: true });
      expect(report).toMatchObject({ runner: "claude", agent: "baton-researcher", status: "researched" });
      expect(report.usage).toMatchObject({
        turns: expect.any(Number),
        costUsd: expect.any(Number),
        inputTokens: expect.any(Number),
      });
      // The default agent's own prompt reached the model as its system prompt.
      expect(JSON.stringify(api.messageRequests()[0]!.body!.system)).toContain("Baton researcher");
      expect(readStore(t.ctx).state.tasks[0]).toMatchObject({
        status: "researched",
        artifacts: [{ path: "specs/1_parser_crash/reports/research-001.md" }],
      });
      expect(execFileSync("git", ["log", "-1", "--format=%B"], { cwd: t.dir, encoding: "utf8" })).toMatch(
        new RegExp(
          `^task 1: complete research\n\nSession: ${report.sessionId}\nBaton-Seal: [0-9a-f]{32} \\S+\n\n$`,
        ),
      );
    });

    test("an agent that stops without metadata is refused at GATE OUT", { timeout: 30_000 }, async () => {
      const { t, report } = await research((repo) => ({
        conversations: [
          {
            match: { prompt: "Baton delegates research of task 1" },
            turns: [writeReport(repo), say(text("Done, I think."))],
          },
        ],
      }));
      expect(report.result).toMatchObject({ ok: false, checkpoint: "GATE_OUT", code: "META_MISSING" });
      expect(report.status).toBe("researching");
      expect(existsSync(join(t.dir, "specs/1_parser_crash/reports/research-001.md"))).toBe(true);
      expect(loadErrors(t.ctx.paths).entries.at(-1)).toMatchObject({
        type: "meta_missing",
        context: { checkpoint: "GATE_OUT" },
      });
    });
  },
);
