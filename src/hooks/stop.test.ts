import { existsSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type HookRepo, hookLog, hookRepo, stopInput } from "../testing/hook-fixture.js";
import { handleHook } from "./dispatch.js";
import { STOP_BLOCK_LIMIT, stopCounterPath } from "./stop.js";

let repo: HookRepo;
beforeEach(() => {
  repo = hookRepo();
});
afterEach(() => repo.cleanup());

async function stopHook(extra: Record<string, unknown> = {}) {
  const body = JSON.stringify(stopInput(repo.dir, extra));
  return (await handleHook("stop", body, { projectDir: repo.dir, fallbackDir: repo.dir })) as {
    decision?: string;
    reason?: string;
  };
}

describe("stop", () => {
  it("blocks the main agent with the exact gate-out command while its checkpoint is open", async () => {
    const task = repo.tasks[0]!;
    repo.delegate({ task, claudeSessionId: "claude-main", batonSession: "sess_5_x" });
    expect(await stopHook()).toEqual({
      decision: "block",
      reason: `Task ${task}'s research is still open: run \`baton gate-out research ${task} --session sess_5_x\` now (it verifies the agent's result and commits)`,
    });
  });

  it(`stops blocking after ${STOP_BLOCK_LIMIT} consecutive blocks, below Claude Code's cap of 9`, async () => {
    repo.delegate({ task: repo.tasks[0]!, claudeSessionId: "claude-main" });
    const decisions = [];
    for (let i = 0; i < 7; i++) decisions.push((await stopHook({ stop_hook_active: i > 0 })).decision);
    expect(decisions).toEqual(["block", "block", "block", "block", "block", undefined, "block"]);
    expect(hookLog(repo.dir).filter((l) => l["note"] === "stop cap")).toHaveLength(1);
  });

  it("restarts the count when stop_hook_active is false", async () => {
    repo.delegate({ task: repo.tasks[0]!, claudeSessionId: "claude-main" });
    for (let i = 0; i < 4; i++) await stopHook({ stop_hook_active: i > 0 });
    expect((await stopHook({ stop_hook_active: false })).decision).toBe("block");
    for (let i = 0; i < 4; i++) expect((await stopHook({ stop_hook_active: true })).decision).toBe("block");
    expect((await stopHook({ stop_hook_active: true })).decision).toBeUndefined();
  });

  it("ignores checkpoints of other sessions, unbound ones and headless runs", async () => {
    repo.delegate({ task: repo.tasks[0]!, claudeSessionId: "claude-other" });
    repo.delegate({ task: repo.tasks[1]! });
    expect(await stopHook()).toEqual({});
    expect(existsSync(stopCounterPath(repo.dir, "claude-main"))).toBe(false);
  });

  it("lets the turn end while a background agent still runs", async () => {
    repo.delegate({ task: repo.tasks[0]!, claudeSessionId: "claude-main" });
    const running = [{ id: "a", type: "subagent", status: "running", agent_type: "researcher" }];
    expect(await stopHook({ background_tasks: running })).toEqual({});
  });
});
