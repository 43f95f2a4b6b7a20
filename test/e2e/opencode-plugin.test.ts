import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { locateOpencode } from "../../src/runners/opencode.js";
import { runProcess } from "../../src/shared/process.js";
import {
  type MessagesRequest,
  promptOf,
  type ScriptInput,
  say,
  startFakeMessagesApi,
  text,
  toolResults,
  toolUse,
} from "../../src/testing/fake-messages-api.js";
import { freePort } from "../../src/testing/free-port.js";
import { offlineOpencodeEnv } from "../../src/testing/offline-opencode.js";
import { requireUnderCi } from "../../src/testing/requirements.js";
import { BATON_BIN } from "../support/cli.js";
import { forgedHistoryCommand } from "./forgery.js";
import { commitAll, GOOD_RESEARCH, git, ok, oneTaskRepo, readJson, runBaton } from "./helpers.js";

/**
 * A live opencode session under `baton init --host opencode`: the real binary runs the installed
 * /research command (`opencode run --command`), whose `!` line opens GATE IN, and Baton's plugin asks
 * Baton's hooks about every tool call, offline against the scripted fake Messages API.
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
/** The delegation prompt gate-in printed, on its own lines (the command's instructions name the markers too). */
const delegationPrompt = (prompt: string) =>
  /^BEGIN PROMPT\n([\s\S]*?)\nEND PROMPT$/m.exec(prompt)?.[1] ?? "";
const lastResult = (request: MessagesRequest) => String(toolResults(request).at(-1)?.content ?? "");
const gateOutCommand = (prompt: string) =>
  /report its output:\n\s+(.+ gate-out .+)\n/.exec(prompt)?.[1] ?? "gate-out command not found";

const metadata = (prompt: string) =>
  JSON.stringify({
    status: "researched",
    summary: "The lexer drops the last token.",
    artifacts: [{ type: "research", path: line(prompt, "Write the report to") }],
    metadata: { session_id: line(prompt, "Session id"), agent_type: "baton-researcher" },
  });

/** Turns of the scripted conversations, computed from what each agent was told. */
const delegate = {
  reply: ({ request }: { request: MessagesRequest }) =>
    say(
      toolUse("task", {
        subagent_type: "baton-researcher",
        description: "research task 1",
        prompt: delegationPrompt(promptOf(request)),
      }),
    ),
};
const writeReport = {
  reply: ({ request }: { request: MessagesRequest }) =>
    say(toolUse("write", { filePath: line(promptOf(request), "Write the report to"), content: REPORT })),
};
const writeMetadata = {
  reply: ({ request }: { request: MessagesRequest }) =>
    say(
      toolUse("write", {
        filePath: line(promptOf(request), "Write the return metadata, last, to"),
        content: metadata(promptOf(request)),
      }),
    ),
};

/** The hook server answering on the repository's port, if one does. */
async function hookServer(dir: string): Promise<{ pid: number; root: string } | null> {
  try {
    const port = readFileSync(join(dir, ".baton", "serve.port"), "utf8").trim();
    const response = await fetch(`http://127.0.0.1:${port}/health`);
    return response.headers.get("x-baton-hook") === "1"
      ? ((await response.json()) as { pid: number; root: string })
      : null;
  } catch {
    return null;
  }
}

async function opencodeSession(script: ScriptInput) {
  const api = await startFakeMessagesApi(script);
  cleanups.push(() => api.close());
  const offline = offlineOpencodeEnv(api.url);
  cleanups.push(offline.remove);
  const dir = oneTaskRepo();
  ok(dir, ["init", "--host", "opencode", "--bin", `node ${BATON_BIN}`]);
  commitAll(dir, "baton init --host opencode");
  // The plugin starts the repository's hook server at its first call; it is stopped with the test.
  cleanups.push(async () => {
    const health = await hookServer(dir);
    if (!health) return;
    process.kill(health.pid, "SIGTERM");
    // It removes its port file and logs as it goes: the repository is removed only once it is gone.
    await until(() => !alive(health.pid), "the hook server to stop", 30_000);
  });
  const env = { ...process.env, ...offline.env };
  const run = (args: string[]) =>
    runProcess({
      command: located.path!,
      args: ["run", "--format", "json", "--model", "anthropic/claude-sonnet-4-5", ...args],
      cwd: dir,
      env,
      timeoutMs: 150_000,
    });
  return { dir, api, run, env };
}

/** `opencode serve` in the repository, the way the TUI runs a session: the plugin's re-prompts are answered there. */
async function serve(dir: string, env: NodeJS.ProcessEnv): Promise<string> {
  const port = await freePort();
  const child = spawn(located.path!, ["serve", "--port", String(port), "--hostname", "127.0.0.1"], {
    cwd: dir,
    env,
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  cleanups.push(() => {
    try {
      process.kill(-child.pid!, "SIGKILL");
    } catch {
      // already gone
    }
  });
  let out = "";
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`opencode serve did not start: ${out}`)), 60_000);
    const seen = (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes("listening on")) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on("data", seen);
    child.stderr.on("data", seen);
    child.on("exit", (code) => reject(new Error(`opencode serve exited ${code}: ${out}`)));
  });
  return `http://127.0.0.1:${port}`;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until(check: () => boolean, what: string, ms = 120_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

const titles = { fallback: say(text("Research the lexer")) };

const seen = (api: Awaited<ReturnType<typeof startFakeMessagesApi>>) =>
  api
    .messageRequests()
    .map(
      (r) =>
        `${r.conversation}#${r.turn} ${r.source} ${r.problem ?? ""} ${r.body ? JSON.stringify(toolResults(r.body).map((t) => [t.isError, String(t.content).slice(0, 300)])) : ""}`,
    )
    .join("\n");

describe.skipIf(located.path === null)("Baton's plugin in an opencode session (real binary)", () => {
  // One session tries the ways around the gates one after another (an opencode start costs about 14 CPU-s), and
  // each refusal is checked at the turn it answered.
  it("guards the store, refuses hook input fed by the agent, makes the main agent delegate, binds a paraphrased delegation, refuses a result without metadata, and gates out", async () => {
    const { dir, api, run } = await opencodeSession({
      conversations: [
        {
          name: "main",
          match: { prompt: "Baton's GATE IN for research of task 1" },
          turns: [
            // A hostile main agent: the store by the edit tool and by the shell, then the agent's own work.
            say(toolUse("write", { filePath: "specs/state.json", content: "{}" })),
            say(toolUse("bash", { command: "echo hacked > specs/TODO.md" })),
            say(toolUse("write", { filePath: "src/lexer.ts", content: "export const fixed = true;\n" })),
            // Hook input the agent feeds Baton itself: no decision may come of it.
            say(toolUse("bash", { command: `echo '{}' | node ${BATON_BIN} hook subagent-stop` })),
            // A delegation in the agent's own words: Baton adds gate-in's prompt, so the researcher is told its task.
            say(
              toolUse("task", {
                subagent_type: "baton-researcher",
                description: "research task 1",
                prompt: "Please look into task 1 and write up what you find.",
              }),
            ),
            {
              reply: ({ request }) => {
                const refusal = lastResult(request);
                return say(
                  toolUse("task", {
                    subagent_type: "baton-researcher",
                    description: "finish research task 1",
                    task_id: /task_id "([^"]+)"/.exec(refusal)?.[1] ?? "no task_id in the refusal",
                    prompt: refusal,
                  }),
                );
              },
            },
            { reply: ({ request }) => say(toolUse("bash", { command: gateOutCommand(promptOf(request)) })) },
            say(text("Task 1 is researched.")),
          ],
        },
        {
          name: "researcher",
          match: { system: "# Baton researcher" },
          turns: [writeReport, say(text("I am done.")), writeMetadata, say(text("Metadata written."))],
        },
      ],
      ...titles,
    });
    const stateBefore = readFileSync(join(dir, "specs", "state.json"), "utf8");
    const result = await run(["--command", "research", "1"]);
    expect(result.ok, `${result.stdout}${result.stderr}\n${seen(api)}`).toBe(true);
    const main = api.messageRequests().filter((r) => r.conversation === "main");
    const told = main.flatMap((r) => (r.body ? toolResults(r.body) : []));
    // The store: refused for the edit tool and the shell alike, with Baton's reason.
    expect(told[0]).toMatchObject({ name: "write", isError: true });
    expect(String(told[0]?.content)).toContain("specs/state.json is written only by Baton");
    expect(told[1]).toMatchObject({ name: "bash", isError: true });
    expect(String(told[1]?.content)).toContain("specs/TODO.md is written only by Baton");
    // The main agent may not do the delegated work; Baton names opencode's task tool.
    expect(told[2]).toMatchObject({ name: "write", isError: true });
    expect(String(told[2]?.content)).toContain('call the task tool with subagent_type "baton-researcher"');
    expect(told[3]).toMatchObject({ name: "bash", isError: true });
    expect(String(told[3]?.content)).toContain("take their input from the host");
    // The sub-agent stopped without its metadata: its result is refused, the parent resumes it.
    expect(told[4]).toMatchObject({ name: "task", isError: true });
    expect(String(told[4]?.content)).toContain("Baton refused agent baton-researcher's result");
    expect(told[5]).toMatchObject({ name: "task", isError: false });
    expect(String(told[6]?.content)).toContain("GATE OUT passed: task 1 research done → researched");
    expect(readJson(dir, "state.json").active_projects[0].status).toBe("researched");
    expect(git(dir, ["log", "-1", "--format=%B"])).toMatch(/Session: sess_/);
    expect(readFileSync(join(dir, FOLDER, "reports", "research-001.md"), "utf8")).toBe(REPORT);
    // opencode runs the model's commands without a sandbox: the evidence says the key was in their reach, and
    // verify lists the result apart from those made where no model process could read the key.
    const [evidenceFile] = readdirSync(join(dir, FOLDER, "evidence"));
    const evidence = readJson(dir, join(FOLDER.replace(/^specs\//, ""), "evidence", evidenceFile!));
    expect(evidence.keyReachable).toMatch(
      /^opencode runs the model's commands without a sandbox \(session opencode-/,
    );
    // (opencode's hooks sign with the key of its own offline HOME: trusted here by its fingerprint.)
    const verified = JSON.parse(ok(dir, ["verify", "--json", "--trust", evidence.signature.key]).stdout);
    expect(verified.verified).toEqual([]);
    expect(verified.keyReachable).toEqual([expect.objectContaining({ task: 1, to: "researched" })]);
    expect(stateBefore).not.toBe(readFileSync(join(dir, "specs", "state.json"), "utf8"));
    expect(readFileSync(join(dir, "specs", "TODO.md"), "utf8")).not.toContain("hacked");
    expect(api.problems()).toEqual([]);
    // Every decision is in Baton's hook log, as for Claude Code.
    const log = readFileSync(join(dir, ".baton", "logs", "hooks.jsonl"), "utf8");
    expect(log.match(/"decision":"deny"/g)?.length).toBeGreaterThanOrEqual(3);
    expect(existsSync(join(dir, ".opencode", "plugin", "baton.js"))).toBe(true);
    // The plugin asks the repository's own hook server, started at its first call through SessionStart with
    // opencode's process as the session; it ends once opencode has.
    expect(log).toMatch(/"event":"session-start"[^\n]*"note":"resident server started"/);
    let server = await hookServer(dir);
    for (let i = 0; i < 50 && server !== null; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      server = await hookServer(dir);
    }
    expect(server).toBeNull();
  }, 200_000);

  it("records who wrote the task folder: a report the main agent wrote itself, then a forged delegation history, are refused at GATE OUT", async () => {
    let reopened = "";
    const { dir, api, run } = await opencodeSession({
      conversations: [
        {
          name: "main",
          match: { prompt: "Baton's GATE IN for research of task 1" },
          turns: [
            say(toolUse("write", { filePath: `${FOLDER}/reports/research-001.md`, content: REPORT })),
            delegate,
            { reply: ({ request }) => say(toolUse("bash", { command: gateOutCommand(promptOf(request)) })) },
            // Refused (the checkpoint is closed), it opens a new one and passes its own work off as a sub-agent's:
            // log lines Baton did not seal.
            say(toolUse("bash", { command: `node ${BATON_BIN} gate-in research --host opencode 1` })),
            {
              reply: ({ request }) => {
                reopened = lastResult(request);
                return say(toolUse("bash", { command: forgedHistoryCommand(reopened) }));
              },
            },
            { reply: () => say(toolUse("bash", { command: gateOutCommand(reopened) })) },
            say(text("Gate out refused.")),
          ],
        },
        {
          // The sub-agent only claims the main agent's report.
          name: "researcher",
          match: { system: "# Baton researcher" },
          turns: [writeMetadata, say(text("Metadata written."))],
        },
      ],
      ...titles,
    });
    const result = await run(["--command", "research", "1"]);
    expect(result.ok, `${result.stdout}${result.stderr}\n${seen(api)}`).toBe(true);
    const told = api
      .messageRequests()
      .filter((r) => r.conversation === "main")
      .flatMap((r) => (r.body ? toolResults(r.body) : []));
    expect(told[0]).toMatchObject({ name: "write", isError: false });
    expect(String(told[2]?.content)).toContain("GATE OUT refused research of task 1 [NOT_WRITTEN_BY_AGENT]");
    expect(String(told[3]?.content)).toContain("GATE IN passed");
    expect(String(told[4]?.content)).toContain("forged");
    expect(String(told[5]?.content)).toContain("[DELEGATION_LOG_FORGED]");
    expect(readJson(dir, "state.json").active_projects[0].status).not.toBe("researched");
    expect(api.problems()).toEqual([]);
  }, 200_000);

  it("a commit the model types with a made-up Session trailer is refused at the next GATE IN, and by verify", async () => {
    const forge =
      "echo 'made by the model' > notes.txt && git add notes.txt && " +
      "git commit -qm 'task 2: complete research' -m 'Session: sess_1799999999_abcdef'";
    const { dir, api, run } = await opencodeSession({
      conversations: [
        {
          name: "main",
          match: { prompt: "Commit the notes" },
          turns: [say(toolUse("bash", { command: forge })), say(text("Committed."))],
        },
        {
          name: "refused",
          match: { prompt: "research of task 2" },
          turns: [say(text("GATE IN refused."))],
        },
      ],
      ...titles,
    });
    // Baton's sealed history first: a headless research of task 1 before any session runs.
    ok(dir, ["task", "add", "Study the parser", "-l", "general"]);
    commitAll(dir, "a second task");
    writeFileSync(join(dir, ".git", "agent.json"), JSON.stringify({ steps: GOOD_RESEARCH }));
    ok(dir, ["research", "1", "--script", join(dir, ".git", "agent.json")]);
    const committed = await run(["Commit the notes"]);
    expect(committed.ok, `${committed.stdout}${committed.stderr}\n${seen(api)}`).toBe(true);
    expect(git(dir, ["log", "-1", "--format=%B"])).toContain("Session: sess_1799999999_abcdef");
    const before = readFileSync(join(dir, "specs", "state.json"), "utf8");
    await run(["--command", "research", "2"]);
    const prompt = api
      .messageRequests()
      .filter((r) => r.conversation === "refused")
      .map((r) => (r.body ? promptOf(r.body) : ""))
      .join("\n");
    expect(prompt).toContain("carries Baton's Session trailer for a session Baton never ran here");
    expect(readFileSync(join(dir, "specs", "state.json"), "utf8")).toBe(before);
    const verify = runBaton(dir, ["verify"]);
    expect(verify.status).toBe(1);
    expect(verify.stdout).toContain("FORGED  commit");
  }, 200_000);

  it("under opencode serve (as in the TUI) closes the checkpoint of a main agent that stops before gate-out", async () => {
    const { dir, api, env } = await opencodeSession({
      conversations: [
        {
          name: "main",
          match: { prompt: "Baton's GATE IN for research of task 1" },
          turns: [
            delegate,
            // Ends its turn without GATE OUT: Baton's stop hook, asked on session.idle, finds the agent
            // returned and runs GATE OUT itself.
            say(text("The researcher is done.")),
          ],
        },
        {
          name: "researcher",
          match: { system: "# Baton researcher" },
          turns: [writeReport, writeMetadata, say(text("Report and metadata written."))],
        },
      ],
      ...titles,
    });
    const config = JSON.parse(env.OPENCODE_CONFIG_CONTENT!);
    const url = await serve(dir, {
      ...env,
      OPENCODE_CONFIG_CONTENT: JSON.stringify({ ...config, model: "anthropic/claude-sonnet-4-5" }),
    });
    const post = async (path: string, body: unknown) => {
      const response = await fetch(`${url}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      expect(response.ok, `${path}: ${response.status} ${await response.clone().text()}`).toBe(true);
      return response.json() as Promise<{ id: string }>;
    };
    const session = await post("/session", { title: "baton serve test" });
    await post(`/session/${session.id}/command`, { command: "research", arguments: "1" });
    // The record lands first and its commit right after, in the gate-out the plugin runs.
    await until(
      () =>
        readJson(dir, "state.json").active_projects[0].status === "researched" &&
        /Session: sess_/.test(git(dir, ["log", "-1", "--format=%B"])),
      `task 1 researched and committed\n${seen(api)}`,
    );
    // No re-prompt was needed: the model was asked twice (delegate, then its last word).
    expect(api.messageRequests().filter((r) => r.conversation === "main")).toHaveLength(2);
    expect(git(dir, ["log", "-1", "--format=%B"])).toMatch(/Session: sess_/);
    expect(api.problems()).toEqual([]);
  }, 200_000);
});
