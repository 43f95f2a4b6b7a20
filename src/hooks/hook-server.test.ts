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

/** As Claude Code sends a hook: JSON, addressed to 127.0.0.1, no Origin. */
async function postHook(path: string, body: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${server.url}${path}`, {
    method: "POST",
    body,
    headers: { "content-type": "application/json", ...headers },
  });
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

describe("the hook server answers only its host", () => {
  it("refuses a web page's request (Origin), a rebinding host name (Host) and a body that is not JSON", async () => {
    const write = JSON.stringify(
      toolInput(join(repo.dir, "src"), "Write", { file_path: join(repo.dir, "specs/TODO.md") }),
    );
    const before = hookLog(repo.dir).length;
    const fromPage = await postHook("/hooks/pre-tool-use", write, { origin: "http://evil.example" });
    expect(fromPage.status).toBe(403);
    expect(String(fromPage.body["error"])).toContain("no web page");
    // fetch may not set Host; node's own client can, as a browser does for a rebinding name.
    const { request } = await import("node:http");
    const rebound = await new Promise<number>((resolve, reject) => {
      const req = request(
        {
          host: "127.0.0.1",
          port: server.port,
          path: "/hooks/pre-tool-use",
          method: "POST",
          headers: { host: `rebind.example:${server.port}`, "content-type": "application/json" },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on("error", reject);
      req.end(write);
    });
    expect(rebound).toBe(403);
    const plain = await postHook("/hooks/pre-tool-use", write, { "content-type": "text/plain" });
    expect(plain.status).toBe(403);
    // None of them was decided or logged; Claude Code's own request is.
    expect(hookLog(repo.dir)).toHaveLength(before);
    expect((await postHook("/hooks/pre-tool-use", write)).body).toMatchObject({
      hookSpecificOutput: { permissionDecision: "deny" },
    });
  });
});

describe("the installation's hook secret", () => {
  it("refuses a hook request without this installation's secret, even one addressed as Claude Code's", async () => {
    const secret = "ab".repeat(32);
    const guarded = await startHookServer({ port: 0, fallbackDir: repo.dir, secret });
    try {
      const write = JSON.stringify(
        toolInput(join(repo.dir, "src"), "Write", { file_path: join(repo.dir, "specs/TODO.md") }),
      );
      const post = (headers: Record<string, string>) =>
        fetch(`${guarded.url}/hooks/pre-tool-use`, {
          method: "POST",
          body: write,
          headers: { "content-type": "application/json", ...headers },
        });
      const before = hookLog(repo.dir).length;
      expect((await post({})).status).toBe(403);
      expect((await post({ "x-baton-hook-secret": "cd".repeat(32) })).status).toBe(403);
      expect((await post({ "x-baton-hook-secret": secret.slice(1) })).status).toBe(403);
      expect(hookLog(repo.dir)).toHaveLength(before);
      const honest = await post({ "x-baton-hook-secret": secret });
      expect(honest.status).toBe(200);
      expect(await honest.json()).toMatchObject({ hookSpecificOutput: { permissionDecision: "deny" } });
      // Its health names the secret it holds without giving it away.
      const health = (await (await fetch(`${guarded.url}/health`)).json()) as { secretId: string };
      expect(health.secretId).toMatch(/^[0-9a-f]{16}$/);
      expect(JSON.stringify(health)).not.toContain(secret);
    } finally {
      await guarded.close();
    }
  });
});
