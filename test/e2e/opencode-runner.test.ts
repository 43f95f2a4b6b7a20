import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { locateOpencode } from "../../src/runners/opencode.js";
import {
  promptOf,
  type ScriptInput,
  say,
  startFakeMessagesApi,
  text,
  toolResults,
  toolUse,
} from "../../src/testing/fake-messages-api.js";
import { offlineOpencodeEnv } from "../../src/testing/offline-opencode.js";
import { requireUnderCi } from "../../src/testing/requirements.js";
import { git, oneTaskRepo, readJson, runBatonAsync } from "./helpers.js";

/**
 * The real opencode binary (npm `opencode-ai`) as Baton's runner, offline against the scripted fake
 * Messages API: `opencode run --format json` with Baton's agent defined inline, through GATE OUT and COMMIT.
 */
const located = locateOpencode({ baseDir: process.cwd(), pathValue: "" });
requireUnderCi("the opencode binary", located.path === null ? located.message : null);

const FOLDER = "specs/1_study_the_lexer";
const REPORT = `# Research Report: the lexer\n\n${Array.from({ length: 8 }, (_, i) => `- Finding ${i}: the lexer drops token ${i} at src/lexer.ts:${40 + i}.`).join("\n")}\n`;
let cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

const line = (prompt: string, label: string) => new RegExp(`${label}:? (\\S+)`).exec(prompt)?.[1] ?? "";
const writeReport = (prompt: string) =>
  say(toolUse("write", { filePath: line(prompt, "Write the report to"), content: REPORT }));
const writeMetadata = (prompt: string) =>
  say(
    toolUse("write", {
      filePath: line(prompt, "Write the return metadata, last, to"),
      content: JSON.stringify({
        status: "researched",
        summary: "The lexer drops the last token.",
        artifacts: [{ type: "research", path: line(prompt, "Write the report to") }],
        metadata: { session_id: line(prompt, "Session id"), agent_type: "baton-researcher" },
      }),
    }),
  );

/** A repository whose runner is opencode, pointed at the fake API with an isolated home. */
async function opencodeRepo(script: ScriptInput) {
  const api = await startFakeMessagesApi(script);
  cleanups.push(() => api.close());
  const offline = offlineOpencodeEnv(api.url);
  cleanups.push(offline.remove);
  const dir = oneTaskRepo();
  const env = offline.env;
  const config = { runner: { type: "opencode", model: "anthropic/claude-sonnet-4-5", env } };
  writeFileSync(join(dir, "baton.config.json"), JSON.stringify(config, null, 2));
  git(dir, ["add", "-A"]);
  git(dir, ["commit", "-qm", "opencode runner"]);
  return { dir, api };
}

/** The researcher's conversation, told apart from opencode's title request by Baton's agent prompt. */
const researcher = (turns: ScriptInput["conversations"][number]["turns"]) => ({
  name: "researcher",
  match: { system: "# Baton researcher" },
  turns,
});
const titles = { fallback: say(text("Research the lexer")) };

/** What the fake API was asked, for failure messages. */
const seen = (api: Awaited<ReturnType<typeof startFakeMessagesApi>>) =>
  api
    .messageRequests()
    .map(
      (r) =>
        `${r.conversation}#${r.turn} ${r.source} ${r.problem ?? ""} ${r.body ? JSON.stringify(toolResults(r.body).map((t) => [t.isError, String(t.content).slice(0, 200)])) : ""}`,
    )
    .join("\n");

describe.skipIf(located.path === null)("the opencode runner (real binary)", () => {
  // One opencode start costs about 14 CPU-s: the re-prompt and the checks of the whole headless run share one run.
  it("runs the routed agent headless, prompts it again in the same session when it stops before its metadata, and Baton verifies, records and commits its result", async () => {
    const { dir, api } = await opencodeRepo({
      conversations: [
        researcher([
          { reply: ({ request }) => writeReport(promptOf(request)) },
          say(text("I am done.")),
          { reply: ({ request }) => writeMetadata(promptOf(request)) },
          say(text("Metadata written.")),
        ]),
      ],
      ...titles,
    });
    const result = await runBatonAsync(dir, ["research", "1", "--json"]);
    expect(result.status, `${result.stdout}${result.stderr}\n${seen(api)}`).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report).toMatchObject({ runner: "opencode", status: "researched", result: { ok: true } });
    expect(report.usage.inputTokens).toBeGreaterThan(0);
    const sessions = new Set(
      api
        .messageRequests()
        .filter((r) => r.conversation === "researcher")
        .map((r) => String(r.headers["x-session-id"] ?? "")),
    );
    expect(sessions.size).toBe(1);
    const asked = api.messageRequests().filter((r) => r.conversation === "researcher");
    expect(JSON.stringify(asked.at(-2)?.body)).toContain("You stopped before writing the return metadata");
    expect(readJson(dir, "state.json").active_projects[0].status).toBe("researched");
    expect(git(dir, ["log", "-1", "--format=%s"]).trim()).toBe("task 1: complete research");
    expect(git(dir, ["show", "--name-only", "--format=", "HEAD"])).toContain(
      `${FOLDER}/reports/research-001.md`,
    );
    expect(api.problems()).toEqual([]);
  }, 180_000);
});
