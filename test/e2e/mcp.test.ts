import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { describe, expect, it } from "vitest";
import { wholeWayScript } from "../../src/testing/generate-plan.js";
import { BATON_BIN } from "../support/cli.js";
import { activeTasks, commitAll, git, ok, okJson, tasksWithScript } from "./helpers.js";

/**
 * `baton mcp` driven by the MCP SDK's own client over stdio: a task taken research → plan → approve →
 * implement by scripted agents, every operation through Baton's gates, long work as start-then-poll.
 */
async function connect(dir: string, args: string[]): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BATON_BIN, "mcp", ...args],
    cwd: dir,
    stderr: "pipe",
  });
  const client = new Client({ name: "baton-test", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

// biome-ignore lint/suspicious/noExplicitAny: tool results are JSON the test asserts on directly
type Data = any;

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<Data> {
  const result = await client.callTool({ name, arguments: args });
  return { ...(result.structuredContent as object), isError: result.isError === true };
}

/** Starts an operation and asks `status` until it ends, as a client whose tool calls are cut after minutes would. */
async function runToEnd(client: Client, operation: string, task: number): Promise<Data> {
  const started = await call(client, "start", { operation, task });
  expect(started).toMatchObject({ state: "running", run: expect.stringMatching(/^run_/) });
  for (let i = 0; i < 600; i++) {
    const status = await call(client, "status", { run: started.run });
    if (status.state !== "running") return status;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${operation} ${task} did not end`);
}

describe("baton mcp over stdio", () => {
  it("takes a task research → plan → approve → implement; implement waits for the approval", async () => {
    const { dir, script } = tasksWithScript(1, wholeWayScript());
    writeFileSync(join(dir, "baton.config.yaml"), "approvals:\n  implement: plan\n");
    commitAll(dir, "approvals");
    const client = await connect(dir, ["--script", script, "--allow-approvals"]);
    try {
      const tools = (await client.listTools()).tools.map((t) => t.name).sort();
      expect(tools).toEqual(["approve", "cancel", "reject", "result", "start", "status", "tasks"]);
      expect(await runToEnd(client, "research", 1)).toMatchObject({
        state: "finished",
        taskStatus: "researched",
        verdict: { ok: true },
      });
      expect(await runToEnd(client, "plan", 1)).toMatchObject({
        taskStatus: "planned",
        approvalPending: { standing: "pending" },
      });
      const refused = await runToEnd(client, "implement", 1);
      expect(refused).toMatchObject({
        verdict: { ok: false, code: "APPROVAL_REQUIRED" },
        taskStatus: "planned",
      });
      const shown = await call(client, "tasks", { task: 1 });
      expect(shown.approval).toMatchObject({
        standing: "pending",
        sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      });
      const plan = await client.readResource({ uri: "baton://task/1/plan" });
      expect(JSON.stringify(plan.contents[0])).toContain("### Phase 1:");
      const stale = await call(client, "approve", { task: 1, sha256: "0".repeat(64) });
      expect(stale).toMatchObject({ isError: true, code: "PLAN_CHANGED" });
      expect(await call(client, "approve", { task: 1, sha256: shown.approval.sha256 })).toMatchObject({
        verdict: "approved",
        committed: true,
      });
      const done = await runToEnd(client, "implement", 1);
      expect(done).toMatchObject({ verdict: { ok: true }, taskStatus: "completed", approvalPending: null });
      const result = await call(client, "result", { run: done.run });
      expect(result.report).toMatchObject({ result: { ok: true } });
      expect(activeTasks(dir)[0]!.status).toBe("completed");
      const subjects = git(dir, ["log", "--format=%s"]);
      for (const s of [
        "task 1: complete research",
        "task 1: create implementation plan",
        "task 1: approve plan",
        "task 1: complete implementation",
      ])
        expect(subjects).toContain(s);
      expect(ok(dir, ["verify"]).stdout).toContain("0 phantom(s)");
    } finally {
      await client.close();
    }
  }, 180_000);

  it("offers no way to answer for a plan without the person's flag; cancel stops a run as Ctrl-C does", async () => {
    const { dir, script } = tasksWithScript(1, wholeWayScript({ sleepMs: 60_000 }));
    const client = await connect(dir, ["--script", script]);
    try {
      const tools = (await client.listTools()).tools.map((t) => t.name);
      expect(tools).not.toContain("approve");
      const missing = await client
        .callTool({ name: "approve", arguments: { task: 1, sha256: "x" } })
        .catch((e) => e);
      expect(String(missing instanceof Error ? missing.message : JSON.stringify(missing))).toMatch(/approve/);
      const started = await call(client, "start", { operation: "research", task: 1 });
      for (let i = 0; i < 100 && activeTasks(dir)[0]!.status !== "researching"; i++)
        await new Promise((r) => setTimeout(r, 100));
      const cancelled = await call(client, "cancel", { run: started.run });
      expect(cancelled).toMatchObject({ state: "cancelled", verdict: { ok: false, code: "RUNNER_ABORTED" } });
      // As after Ctrl-C: no run holds the task any more, nothing was recorded.
      expect(okJson(dir, ["status", "--json"]).running).toEqual([]);
      expect(activeTasks(dir)[0]!.status).not.toBe("researched");
      expect(await call(client, "status", { run: "run_000000000000" })).toMatchObject({
        isError: true,
        code: "RUN_NOT_FOUND",
      });
    } finally {
      await client.close();
    }
  }, 120_000);
});
