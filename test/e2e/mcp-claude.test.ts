import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { runClaude } from "../../src/testing/claude-test-binary.js";
import { type ReplyContext, say, text, toolResults, toolUse } from "../../src/testing/fake-messages-api.js";
import { wholeWayScript } from "../../src/testing/generate-plan.js";
import { startOfflineClaude } from "../../src/testing/offline-claude.js";
import { activeTasks, git, ok, tasksWithScript } from "./helpers.js";

/**
 * The real Claude Code binary as an MCP client of `baton mcp`, registered by `baton init --mcp`, against the
 * scripted model API on 127.0.0.1: the model lists tasks, starts research, and asks `status` until the run
 * ends — in the default permission mode, with only Baton's MCP tools allowed.
 */
describe("baton mcp with Claude Code as the client", () => {
  test("a session researches a task through Baton's MCP tools; the result is Baton's, gated and committed", {
    timeout: 180_000,
  }, async () => {
    const { dir, script } = tasksWithScript(1, wholeWayScript());
    ok(dir, ["init", "--mcp", "--hooks", "command", "--host-sandbox", "off"]);
    // The registration init wrote, pointed at the scripted agent for this test.
    const mcp = JSON.parse(readFileSync(join(dir, ".mcp.json"), "utf8"));
    const server = mcp.mcpServers.baton as { command: string; args: string[] };
    if (server.command === "baton") server.args.push("--script", script);
    else server.args[1] = `${server.args[1]} --script '${script}'`;
    writeFileSync(join(dir, ".mcp.json"), JSON.stringify(mcp));
    git(dir, ["add", "-A"]);
    git(dir, ["commit", "-qm", "baton init --mcp"]);
    const seen: string[] = [];
    const lastResult = ({ request }: ReplyContext) => {
      const result = toolResults(request).at(-1);
      if (result) seen.push(`${result.name}: ${result.content}`);
      return result;
    };
    let run = "";
    const { api, env, close } = await startOfflineClaude({
      conversations: [
        {
          name: "main",
          match: { prompt: "Research task 1 through Baton" },
          turns: [
            { content: [toolUse("mcp__baton__tasks", {})] },
            {
              reply: (context) => {
                lastResult(context);
                return say(toolUse("mcp__baton__start", { operation: "research", task: 1 }));
              },
            },
          ],
        },
      ],
      fallback: {
        reply: (context) => {
          const result = lastResult(context);
          const data = result ? (JSON.parse(result.content) as { run?: string; state?: string }) : {};
          run = data.run ?? run;
          if (data.state === "running")
            return { ...say(toolUse("mcp__baton__status", { run })), delayMs: 200 };
          return say(text(`Research ended: ${result?.content ?? "nothing"}`));
        },
      },
    });
    const session = await runClaude({
      cwd: dir,
      args: [
        "-p",
        "Research task 1 through Baton",
        "--output-format",
        "json",
        "--allowedTools",
        "mcp__baton",
      ],
      env,
      timeoutMs: 150_000,
    });
    await close();
    const shown = `${session.stdout}\n${session.stderr}\n${seen.join("\n")}`;
    expect(api.problems(), shown).toEqual([]);
    expect(seen[0], shown).toMatch(/^mcp__baton__tasks: .*"number": ?1/s);
    expect(seen.at(-1), shown).toMatch(/"state": ?"finished"[\s\S]*"taskStatus": ?"researched"/);
    expect(activeTasks(dir)[0]!.status).toBe("researched");
    expect(git(dir, ["log", "--format=%s"])).toContain("task 1: complete research");
  });
});
