import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { signingKey } from "../evidence/signing.js";
import { appendDelegationEvents, delegationLogPath, readDelegation } from "../state/delegation-log.js";
import { type HookRepo, hookRepo, stopInput, toolInput } from "../testing/hook-fixture.js";
import { handleHook } from "./dispatch.js";

// Hook input that does not come from the host: lines written into the delegation log by hand, a stop
// whose last words are not the agent's, and a delegation call whose prompt leaves out Baton's session.
let repo: HookRepo;
let keyDir: string;
const previousKeyDir = process.env["BATON_KEY_DIR"];
beforeAll(() => {
  keyDir = mkdtempSync(join(tmpdir(), "baton-keys-"));
  process.env["BATON_KEY_DIR"] = keyDir;
  signingKey(keyDir);
});
afterAll(() => {
  if (previousKeyDir === undefined) delete process.env["BATON_KEY_DIR"];
  else process.env["BATON_KEY_DIR"] = previousKeyDir;
  rmSync(keyDir, { recursive: true, force: true });
});
beforeEach(() => {
  repo = hookRepo();
});
afterEach(() => repo.cleanup());

const env = () => ({ projectDir: repo.dir, fallbackDir: repo.dir });
const internal = () => join(repo.dir, "specs", ".baton");
type Reply = {
  decision?: string;
  hookSpecificOutput?: {
    permissionDecision?: string;
    updatedInput?: { prompt?: string; [key: string]: unknown };
  };
};

function transcript(agentId: string, lines: unknown[]): void {
  const folder = join(repo.dir, "main", "subagents");
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, `agent-${agentId}.jsonl`), lines.map((l) => `${JSON.stringify(l)}\n`).join(""));
}

const said = (text: string) => ({
  type: "assistant",
  message: { role: "assistant", content: [{ type: "text", text }] },
});

async function start(agentId: string): Promise<void> {
  const body = stopInput(repo.dir, {
    hook_event_name: "SubagentStart",
    agent_id: agentId,
    agent_type: "researcher",
    transcript_path: join(repo.dir, "main.jsonl"),
  });
  await handleHook("subagent-start", JSON.stringify(body), env());
}

async function stop(agentId: string, words: string): Promise<Reply> {
  const body = stopInput(repo.dir, {
    hook_event_name: "SubagentStop",
    agent_id: agentId,
    agent_type: "researcher",
    transcript_path: join(repo.dir, "main.jsonl"),
    last_assistant_message: words,
  });
  return (await handleHook("subagent-stop", JSON.stringify(body), env())) as Reply;
}

describe("the delegation log is sealed", () => {
  it("reads Baton's own lines and reports each line appended without Baton's key", () => {
    const d = repo.delegate({ task: repo.tasks[0]!, claudeSessionId: "claude-main", markerBound: true });
    const at = new Date().toISOString();
    appendDelegationEvents(internal(), d.batonSession, [{ type: "launch", at, agentType: "researcher" }]);
    const log = delegationLogPath(internal(), d.batonSession);
    expect(readDelegation(internal(), d.batonSession)).toMatchObject({
      launches: ["researcher"],
      forged: [],
    });
    // What a model appends: a well-formed event, with no seal, or with a seal it made up.
    const bind = { type: "bind", at, agentId: "fake", agentType: "researcher", via: "start" };
    appendFileSync(log, `${JSON.stringify(bind)}\n${JSON.stringify(bind)}\t#AAAA\n`);
    const view = readDelegation(internal(), d.batonSession);
    expect(view.agentId).toBeUndefined();
    expect(view.forged).toHaveLength(2);
    // A sealed line moved from another delegation's log does not verify either.
    const other = repo.delegate({ task: repo.tasks[1]!, claudeSessionId: "claude-main", markerBound: true });
    appendFileSync(
      delegationLogPath(internal(), other.batonSession),
      readFileSync(log, "utf8").split("\n")[0]!,
    );
    expect(readDelegation(internal(), other.batonSession).forged).toHaveLength(1);
  });
});

describe("the delegation log is a chain no one can shorten", () => {
  const events = (at: string) => [
    { type: "launch" as const, at, agentType: "researcher" },
    { type: "bind" as const, at, agentId: "a1", agentType: "researcher", via: "start" as const },
    {
      type: "stop" as const,
      at,
      agentId: "a1",
      lastOutput: "TASK_ERROR: sources unreachable",
      blocked: false,
    },
  ];
  it.each([
    ["a line dropped from the middle", (lines: string[]) => [lines[0]!, lines[2]!]],
    ["the last line dropped", (lines: string[]) => lines.slice(0, 2)],
    ["two lines swapped", (lines: string[]) => [lines[0]!, lines[2]!, lines[1]!]],
    ["every line dropped", () => []],
  ])("%s is seen", (_what, edit) => {
    const d = repo.delegate({ task: repo.tasks[0]!, claudeSessionId: "claude-main", markerBound: true });
    const at = new Date().toISOString();
    // One append per event, as the hooks make them.
    for (const event of events(at)) appendDelegationEvents(internal(), d.batonSession, [event]);
    const log = delegationLogPath(internal(), d.batonSession);
    expect(readDelegation(internal(), d.batonSession)).toMatchObject({
      forged: [],
      stopOutput: expect.stringContaining("TASK_ERROR"),
    });
    const lines = readFileSync(log, "utf8")
      .split("\n")
      .filter((l) => l !== "");
    writeFileSync(
      log,
      edit(lines)
        .map((l) => `${l}\n`)
        .join(""),
    );
    expect(readDelegation(internal(), d.batonSession).forged.length).toBeGreaterThan(0);
  });
});

describe("a stop whose last words are not the agent's", () => {
  it("is refused, and a later stop never replaces a TASK_ERROR the agent reported", async () => {
    const d = repo.delegate({ task: repo.tasks[0]!, claudeSessionId: "claude-main", markerBound: true });
    transcript("a1", [{ content: `Baton delegates research. Session id: ${d.batonSession}` }]);
    await start("a1");
    writeFileSync(d.metadataPath, JSON.stringify({ status: "researched", summary: "s", artifacts: [] }));
    transcript("a1", [
      { content: `Baton delegates research. Session id: ${d.batonSession}` },
      said("TASK_ERROR: the sources are unreachable"),
    ]);
    await stop("a1", "TASK_ERROR: the sources are unreachable");
    // The model pipes its own SubagentStop, naming words the agent never said.
    const forged = await stop("a1", "Research complete.");
    expect(forged.decision).toBeUndefined();
    expect(readDelegation(internal(), d.batonSession).stopOutput).toBe(
      "TASK_ERROR: the sources are unreachable",
    );
    // Even a stop the transcript backs only adds to what the agent said.
    transcript("a1", [said("TASK_ERROR: the sources are unreachable"), said("Done after all.")]);
    await stop("a1", "Done after all.");
    expect(readDelegation(internal(), d.batonSession).stopOutput).toContain("TASK_ERROR");
  });
});

describe("a delegation call whose prompt leaves out Baton's session", () => {
  it("gets gate-in's prompt added, so the sub-agent is bound by its own transcript", async () => {
    const d = repo.delegate({ task: repo.tasks[0]!, claudeSessionId: "claude-main", markerBound: true });
    const batonPrompt = `Baton delegates research of task ${repo.tasks[0]}.\nSession id: ${d.batonSession}`;
    appendDelegationEvents(internal(), d.batonSession, [
      { type: "prompt", at: new Date().toISOString(), agentType: "researcher", text: batonPrompt },
    ]);
    const paraphrase = "Please research the task and write the report.";
    const call = toolInput(repo.dir, "Agent", { prompt: paraphrase, subagent_type: "researcher" });
    const reply = (await handleHook("pre-tool-use", JSON.stringify(call), env())) as Reply;
    const updated = reply.hookSpecificOutput?.updatedInput ?? {};
    expect(updated).toMatchObject({ subagent_type: "researcher", run_in_background: false });
    expect(updated.prompt).toBe(`${paraphrase}\n\n${batonPrompt}`);
    expect(readDelegation(internal(), d.batonSession).launches).toEqual(["researcher"]);
    transcript("a7", [{ content: updated.prompt }]);
    await start("a7");
    expect(readDelegation(internal(), d.batonSession).agentId).toBe("a7");
    // A second paraphrased call finds no unlaunched delegation: nothing is added, nothing bound.
    const again = (await handleHook("pre-tool-use", JSON.stringify(call), env())) as Reply;
    expect(again.hookSpecificOutput?.updatedInput?.prompt).toBe(paraphrase);
  });
});

describe("a Bash command that feeds Baton's hooks or reaches for its key", () => {
  const decide = async (command: string) => {
    const call = toolInput(repo.dir, "Bash", { command });
    const reply = (await handleHook("pre-tool-use", JSON.stringify(call), env())) as Reply;
    return reply.hookSpecificOutput?.permissionDecision ?? "allow";
  };

  it.each([
    `echo '{"hook_event_name":"SubagentStop"}' | baton hook subagent-stop`,
    "node /opt/baton/bin/baton.js hook post-tool-use < /tmp/event.json",
    "npx baton hook subagent-start <<< '{}'",
    "'/usr/lib/node_modules/baton/bin/baton-hook' pre-tool-use < x.json",
    "curl -s -d @event.json http://127.0.0.1:4892/hooks/subagent-stop",
    "cat ~/.config/baton/keys/evidence-signing-key.pem",
    `python3 -c "open('${"/home/u/.config/baton/keys"}/x').read()"`,
  ])("denies %s", async (command) => {
    expect(await decide(command)).toBe("deny");
  });

  it.each([
    "baton gate-out research 1 --session sess_1_a",
    'grep -n "hook" docs/hooks.md',
    'git commit -m "stop the pre-tool-use noise"',
    "ls specs",
  ])("allows %s", async (command) => {
    expect(await decide(command)).toBe("allow");
  });
});
