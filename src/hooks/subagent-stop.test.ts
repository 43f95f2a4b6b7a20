import { existsSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type HookRepo, hookLog, hookRepo, stopInput } from "../testing/hook-fixture.js";
import { handleHook } from "./dispatch.js";

let repo: HookRepo;
beforeEach(() => {
  repo = hookRepo();
});
afterEach(() => repo.cleanup());

const SUB = { hook_event_name: "SubagentStop", agent_id: "a1", agent_type: "researcher" };
async function subStop(extra: Record<string, unknown> = {}) {
  const body = JSON.stringify(stopInput(repo.dir, { ...SUB, ...extra }));
  return (await handleHook("subagent-stop", body, { projectDir: repo.dir, fallbackDir: repo.dir })) as {
    decision?: string;
    reason?: string;
  };
}
const meta = (status: string) =>
  JSON.stringify({
    status,
    summary: "found it",
    artifacts: [],
    metadata: { session_id: "s", agent_type: "researcher" },
  });

describe("subagent-stop", () => {
  it("blocks until the return metadata is written, naming its path and shape", async () => {
    const d = repo.delegate({ task: repo.tasks[0]!, claudeSessionId: "claude-main", markerBound: true });
    const reply = await subStop();
    expect(reply.decision).toBe("block");
    expect(reply.reason).toContain(
      `Write your return metadata to ${relative(repo.dir, d.metadataPath)} before you stop`,
    );
    expect(reply.reason).toContain('"status":"researched"');
    expect(reply.reason).toContain('"agent_type":"researcher"');

    writeFileSync(d.metadataPath, "{ not json");
    expect((await subStop({ stop_hook_active: true })).decision).toBe("block");
    writeFileSync(d.metadataPath, meta("in_progress"));
    expect((await subStop({ stop_hook_active: true })).reason).toContain('status "in_progress"');

    writeFileSync(d.metadataPath, meta("researched"));
    expect(await subStop({ stop_hook_active: false })).toEqual({});
    expect(existsSync(join(d.folder, ".postflight-loop-guard"))).toBe(false);
  });

  it("lets the agent go after 3 blocks (loop guard) and logs it", async () => {
    const d = repo.delegate({ task: repo.tasks[0]!, claudeSessionId: "claude-main", markerBound: true });
    const decisions = [];
    for (const active of [false, true, true, true])
      decisions.push((await subStop({ stop_hook_active: active })).decision);
    expect(decisions).toEqual(["block", "block", "block", undefined]);
    expect(hookLog(repo.dir).at(-1)).toMatchObject({
      event: "subagent-stop",
      decision: "allow",
      note: "loop guard",
    });
    expect(existsSync(join(d.folder, ".postflight-loop-guard"))).toBe(false);
    expect(existsSync(d.markerPath)).toBe(true);
  });

  it("restarts the count on a fresh stop (stop_hook_active false) and reads the original's bare counter", async () => {
    const d = repo.delegate({ task: repo.tasks[0]!, claudeSessionId: "claude-main", markerBound: true });
    writeFileSync(join(d.folder, ".postflight-loop-guard"), "3");
    expect((await subStop({ stop_hook_active: true })).decision).toBeUndefined();
    writeFileSync(join(d.folder, ".postflight-loop-guard"), "3");
    expect((await subStop({ stop_hook_active: false })).decision).toBe("block");
  });

  it("considers only the marker of the stopping agent's session", async () => {
    const [mine, theirs] = [repo.tasks[0]!, repo.tasks[1]!];
    repo.delegate({ task: theirs, claudeSessionId: "claude-other", markerBound: true });
    expect(await subStop()).toEqual({});
    const d = repo.delegate({ task: mine, claudeSessionId: "claude-main", markerBound: true });
    const reply = await subStop();
    expect(reply.reason).toContain(relative(repo.dir, d.metadataPath));
    expect(hookLog(repo.dir).at(-1)).toMatchObject({
      decision: "block",
      task: mine,
      claude_session: "claude-main",
    });
  });

  it("matches an unbound marker by agent name, and never blocks another kind of agent", async () => {
    repo.delegate({ task: repo.tasks[0]!, agent: "planner" });
    expect(await subStop({ agent_type: "researcher" })).toEqual({});
    expect((await subStop({ agent_type: "planner" })).decision).toBe("block");
    repo.cleanup();
    repo = hookRepo();
    repo.delegate({ task: repo.tasks[0]!, claudeSessionId: "claude-main", markerBound: true });
    expect(await subStop({ agent_type: "Explore" })).toEqual({});
  });

  it("ignores a marker whose checkpoint is closed", async () => {
    const d = repo.delegate({ task: repo.tasks[0]!, claudeSessionId: "claude-main", markerBound: true });
    rmSync(d.checkpointPath);
    expect(await subStop()).toEqual({});
  });
});
