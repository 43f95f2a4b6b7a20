import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { locateCodex } from "../../src/runners/codex.js";
import {
  inputText,
  type ResponsesTurn,
  startFakeResponsesApi,
} from "../../src/testing/fake-responses-api.js";
import { requireUnderCi } from "../../src/testing/requirements.js";
import { git, oneTaskRepo, readJson, runBatonAsync } from "./helpers.js";

/**
 * The real Codex CLI (npm `@openai/codex`) as Baton's runner: `codex exec --json`, stdin closed, offline
 * against a scripted fake Responses API, through GATE OUT and COMMIT.
 */
const located = locateCodex({ baseDir: process.cwd(), pathValue: "" });
requireUnderCi("the Codex CLI", located.path === null ? located.message : null);

let cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

const line = (text: string, label: string) => new RegExp(`${label}:? (\\S+)`).exec(text)?.[1] ?? "";
const REPORT = `# Research Report\\n\\n${Array.from({ length: 8 }, (_, i) => `- Finding ${i}: token ${i} is dropped at src/lexer.ts:${40 + i}.`).join("\\n")}\\n`;
const shell = (cmd: string) => ({ call: { name: "exec_command", arguments: { cmd } } });

async function codexRepo(turns: ResponsesTurn[]) {
  const api = await startFakeResponsesApi(turns);
  cleanups.push(() => api.close());
  const home = mkdtempSync(join(tmpdir(), "baton-codex-home-"));
  cleanups.push(() => rmSync(home, { recursive: true, force: true }));
  const dir = oneTaskRepo();
  const runner = {
    type: "codex",
    model: "fake-model",
    sandbox: "danger-full-access",
    config: {
      model_provider: "fake",
      "model_providers.fake": `{name="fake",base_url="${api.url}/v1",wire_api="responses",env_key="FAKE_KEY"}`,
      "analytics.enabled": "false",
      check_for_update_on_startup: "false",
      "feedback.enabled": "false",
    },
    // Its own HOME as well: codex runs each shell command as a login shell, which would source the developer's profile.
    env: { HOME: home, CODEX_HOME: home, FAKE_KEY: "sk-test" },
  };
  writeFileSync(join(dir, "baton.config.json"), JSON.stringify({ runner }, null, 2));
  git(dir, ["add", "-A"]);
  git(dir, ["commit", "-qm", "codex runner"]);
  return { dir, api };
}

describe.skipIf(located.path === null)("the codex runner (real binary)", () => {
  it("runs codex exec headless; Baton verifies, records and commits what its shell wrote", async () => {
    const { dir, api } = await codexRepo([
      (body) =>
        shell(
          `mkdir -p "$(dirname ${line(inputText(body), "Write the report to")})" && printf '${REPORT}' > ${line(inputText(body), "Write the report to")}`,
        ),
      (body) => {
        const prompt = inputText(body);
        const metadata = JSON.stringify({
          status: "researched",
          summary: "The lexer drops tokens.",
          artifacts: [{ type: "research", path: line(prompt, "Write the report to") }],
          metadata: { session_id: line(prompt, "Session id"), agent_type: "baton-researcher" },
        });
        return shell(`printf '%s' '${metadata}' > ${line(prompt, "Write the return metadata, last, to")}`);
      },
      { message: "Report and metadata written." },
    ]);
    const result = await runBatonAsync(dir, ["research", "1", "--json"]);
    const shown = `${result.stdout}${result.stderr}\n${JSON.stringify(api.requests.map((r) => r.turn))}`;
    expect(result.status, shown).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report).toMatchObject({ runner: "codex", status: "researched", result: { ok: true } });
    expect(report.usage.inputTokens).toBeGreaterThan(0);
    expect(readJson(dir, "state.json").active_projects[0].status).toBe("researched");
    expect(git(dir, ["log", "-1", "--format=%s"]).trim()).toBe("task 1: complete research");
    // The routed agent's instructions lead the prompt: Codex has no agent definitions.
    expect(inputText(api.requests[0]!.body)).toContain("# Baton researcher");
    expect(api.problems()).toEqual([]);
  }, 120_000);

  it("ends a Codex that cannot reach its server at Baton's timeout (it would retry for ever)", async () => {
    const { dir, api } = await codexRepo([{ message: "unused" }]);
    await api.close();
    const started = Date.now();
    const result = await runBatonAsync(dir, ["research", "1", "--timeout", "6"]);
    expect(result.status).toBe(1);
    expect(result.stdout).toContain("RUNNER_TIMEOUT");
    expect(Date.now() - started).toBeLessThan(30_000);
  }, 60_000);
});
