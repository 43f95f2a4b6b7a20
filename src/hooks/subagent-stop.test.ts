import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readDelegation } from "../state/index.js";
import {
  type Delegation,
  type HookRepo,
  hookLog,
  hookRepo,
  stopInput,
  toolInput,
} from "../testing/hook-fixture.js";
import { handleHook } from "./dispatch.js";

let repo: HookRepo;
beforeEach(() => {
  repo = hookRepo();
});
afterEach(() => repo.cleanup());

const env = () => ({ projectDir: repo.dir, fallbackDir: repo.dir });
type Reply = { decision?: string; reason?: string; hookSpecificOutput?: { permissionDecision?: string } };

/** What Claude Code sends when the main thread launches the agent with gate-in's prompt, and it starts. */
async function launch(d: Delegation, agentId: string, agentType = "researcher", session = "claude-main") {
  const prompt = `Baton delegates research of task 1 to you.\n{"session_id":"${d.batonSession}"}`;
  const pre = toolInput(
    repo.dir,
    "Agent",
    { prompt, subagent_type: agentType, run_in_background: false },
    { session_id: session },
  );
  const reply = (await handleHook("pre-tool-use", JSON.stringify(pre), env())) as Reply;
  if (reply.hookSpecificOutput?.permissionDecision === "deny") return reply;
  // Claude Code keeps the sub-agent's transcript beside the session's; its first line is the prompt.
  const transcripts = join(repo.dir, "main", "subagents");
  mkdirSync(transcripts, { recursive: true });
  writeFileSync(join(transcripts, `agent-${agentId}.jsonl`), `${JSON.stringify({ content: prompt })}\n`);
  const start = stopInput(repo.dir, {
    hook_event_name: "SubagentStart",
    agent_id: agentId,
    agent_type: agentType,
    session_id: session,
    transcript_path: join(repo.dir, "main.jsonl"),
  });
  await handleHook("subagent-start", JSON.stringify(start), env());
  return reply;
}

async function subStop(agentId: string, extra: Record<string, unknown> = {}): Promise<Reply> {
  const body = JSON.stringify(
    stopInput(repo.dir, {
      hook_event_name: "SubagentStop",
      agent_id: agentId,
      agent_type: "researcher",
      ...extra,
    }),
  );
  return (await handleHook("subagent-stop", body, env())) as Reply;
}

const meta = (status: string) =>
  JSON.stringify({
    status,
    summary: "found it",
    artifacts: [],
    metadata: { session_id: "s", agent_type: "researcher" },
  });

describe("subagent-stop: one guard per agent", () => {
  it("blocks the bound agent until its return metadata is written, naming its path and shape", async () => {
    const d = repo.delegate({ task: repo.tasks[0]!, claudeSessionId: "claude-main", markerBound: true });
    await launch(d, "a1");
    const reply = await subStop("a1");
    expect(reply.decision).toBe("block");
    expect(reply.reason).toContain(
      `Write your return metadata to ${relative(repo.dir, d.metadataPath)} before you stop`,
    );
    expect(reply.reason).toContain('"status":"researched"');
    expect(reply.reason).toContain('"agent_type":"researcher"');
    writeFileSync(d.metadataPath, "{ not json");
    expect((await subStop("a1", { stop_hook_active: true })).decision).toBe("block");
    writeFileSync(d.metadataPath, meta("in_progress"));
    expect((await subStop("a1", { stop_hook_active: true })).reason).toContain('status "in_progress"');
    writeFileSync(d.metadataPath, meta("researched"));
    expect(await subStop("a1", { stop_hook_active: true })).toEqual({});
  });

  it("lets the agent go after 3 blocks, and restarts the count on a fresh stop", async () => {
    const d = repo.delegate({ task: repo.tasks[0]!, claudeSessionId: "claude-main", markerBound: true });
    await launch(d, "a1");
    const decisions = [];
    for (const active of [false, true, true, true])
      decisions.push((await subStop("a1", { stop_hook_active: active })).decision);
    expect(decisions).toEqual(["block", "block", "block", undefined]);
    expect(hookLog(repo.dir).at(-1)).toMatchObject({
      event: "subagent-stop",
      decision: "allow",
      note: "loop guard",
    });
    expect((await subStop("a1", { stop_hook_active: false })).decision).toBe("block");
  });

  it("deleting the marker does not release the guard", async () => {
    const d = repo.delegate({ task: repo.tasks[0]!, claudeSessionId: "claude-main", markerBound: true });
    await launch(d, "a1");
    rmSync(d.markerPath);
    rmSync(join(d.folder), { recursive: true, force: true });
    expect((await subStop("a1")).decision).toBe("block");
  });

  it("holds each of two agents in one session to its own checkpoint", async () => {
    const first = repo.delegate({ task: repo.tasks[0]!, claudeSessionId: "claude-main", markerBound: true });
    const second = repo.delegate({
      task: repo.tasks[1]!,
      claudeSessionId: "claude-main",
      markerBound: true,
      batonSession: "sess_1700000001_abcdef",
    });
    await launch(second, "a2");
    await launch(first, "a1");
    writeFileSync(first.metadataPath, meta("researched"));
    // The honest agent of the first task goes; the lazy one of the second is held to its own path.
    expect(await subStop("a1")).toEqual({});
    const lazy = await subStop("a2");
    expect(lazy.decision).toBe("block");
    expect(lazy.reason).toContain(relative(repo.dir, second.metadataPath));
    expect(readDelegation(join(repo.dir, "specs", ".baton"), first.batonSession).agentId).toBe("a1");
    expect(readDelegation(join(repo.dir, "specs", ".baton"), second.batonSession).agentId).toBe("a2");
  });

  it("never blocks an agent Baton did not delegate to, another session's, or one whose checkpoint closed", async () => {
    const d = repo.delegate({ task: repo.tasks[0]!, claudeSessionId: "claude-main", markerBound: true });
    expect(await subStop("explore-1", { agent_type: "Explore" })).toEqual({});
    await launch(d, "a1");
    expect(await subStop("a1", { session_id: "claude-other" })).toEqual({});
    rmSync(d.checkpointPath);
    expect(await subStop("a1")).toEqual({});
  });

  it("binds by the prompt in the agent's transcript when SubagentStart was never heard", async () => {
    const d = repo.delegate({ task: repo.tasks[0]!, claudeSessionId: "claude-main", markerBound: true });
    const transcript = join(repo.dir, "agent-a9.jsonl");
    writeFileSync(
      transcript,
      `${JSON.stringify({ type: "user", message: { content: `… "session_id":"${d.batonSession}" …` } })}\n`,
    );
    expect((await subStop("a9", { agent_transcript_path: transcript })).decision).toBe("block");
    expect(readDelegation(join(repo.dir, "specs", ".baton"), d.batonSession)).toMatchObject({
      agentId: "a9",
    });
  });

  it("records the agent's last words for GATE OUT", async () => {
    const d = repo.delegate({ task: repo.tasks[0]!, claudeSessionId: "claude-main", markerBound: true });
    await launch(d, "a1");
    writeFileSync(d.metadataPath, meta("researched"));
    await subStop("a1", { last_assistant_message: "TASK_ERROR: the sources are unreachable" });
    expect(readDelegation(join(repo.dir, "specs", ".baton"), d.batonSession).stopOutput).toBe(
      "TASK_ERROR: the sources are unreachable",
    );
  });

  it("refuses an Agent call of another type than the delegated one", async () => {
    const d = repo.delegate({ task: repo.tasks[0]!, claudeSessionId: "claude-main", markerBound: true });
    const reply = await launch(d, "g1", "general-purpose");
    expect(reply.hookSpecificOutput?.permissionDecision).toBe("deny");
    expect(readDelegation(join(repo.dir, "specs", ".baton"), d.batonSession).agentId).toBeUndefined();
  });
});
