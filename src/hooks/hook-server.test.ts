import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type HookRepo, hookLog, hookRepo, stopInput, toolInput } from "../testing/hook-fixture.js";
import { type HookServer, startHookServer } from "./hook-server.js";

let server: HookServer;
let repo: HookRepo;
beforeAll(async () => {
  repo = hookRepo();
  server = await startHookServer({ port: 0, fallbackDir: repo.dir });
});
afterAll(async () => {
  await server.close();
  repo.cleanup();
});

async function postHook(path: string, body: string) {
  const response = await fetch(`${server.url}${path}`, { method: "POST", body });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe("baton serve", () => {
  it("answers http hooks with the same decisions, finding the project from the input's cwd", async () => {
    const write = toolInput(join(repo.dir, "src"), "Write", { file_path: join(repo.dir, "specs/TODO.md") });
    const denied = await postHook("/hooks/pre-tool-use", JSON.stringify(write));
    expect(denied.status).toBe(200);
    expect(denied.body).toMatchObject({ hookSpecificOutput: { permissionDecision: "deny" } });

    repo.delegate({ task: repo.tasks[0]!, claudeSessionId: "claude-main" });
    const stop = await postHook("/hooks/Stop", JSON.stringify(stopInput(repo.dir)));
    expect(stop.body["decision"]).toBe("block");
    expect(hookLog(repo.dir).map((l) => l["event"])).toEqual(["pre-tool-use", "stop"]);
  });

  it("answers {} to malformed bodies and unknown events, and 404 off the /hooks/ paths", async () => {
    expect(await postHook("/hooks/pre-tool-use", "{oops")).toEqual({ status: 200, body: {} });
    expect(await postHook("/hooks/nothing", "{}")).toEqual({ status: 200, body: {} });
    expect((await postHook("/elsewhere", "{}")).status).toBe(404);
    expect(hookLog(repo.dir).slice(-2)).toMatchObject([
      { problem: expect.any(String) },
      { event: "nothing" },
    ]);
    const health = await fetch(`${server.url}/health`);
    expect(await health.json()).toMatchObject({ ok: true });
  });
});

describe("a hook input's cwd is data, not a place to write", () => {
  it("never writes into a folder the input names that is no Baton repository, and logs the call at home", async () => {
    const { mkdtempSync, existsSync, mkdirSync, rmSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const elsewhere = mkdtempSync(join(tmpdir(), "baton-not-a-repo-"));
    try {
      mkdirSync(join(elsewhere, ".git"));
      const before = hookLog(repo.dir).length;
      const inputs = [
        toolInput(elsewhere, "Write", { file_path: join(elsewhere, "x.txt") }),
        { ...toolInput(elsewhere, "Bash", { command: "ls" }), tool_input: 7 },
        { cwd: join(elsewhere, "deeper"), hook_event_name: "PreToolUse" },
      ];
      for (const input of inputs) await postHook("/hooks/pre-tool-use", JSON.stringify(input));
      await postHook("/hooks/Stop", JSON.stringify(stopInput(elsewhere)));
      expect(existsSync(join(elsewhere, ".baton"))).toBe(false);
      expect(existsSync(join(elsewhere, "deeper"))).toBe(false);
      const logged = hookLog(repo.dir).slice(before);
      expect(logged).toHaveLength(4);
      expect(logged[0]).toMatchObject({
        decision: "allow",
        problem: expect.stringContaining("in no Baton repository"),
      });
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });
});
