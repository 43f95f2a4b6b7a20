import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type HookRepo, hookLog, hookRepo, toolInput } from "../testing/hook-fixture.js";
import { handleHook } from "./dispatch.js";

let repo: HookRepo;
beforeEach(() => {
  repo = hookRepo();
});
afterEach(() => repo.cleanup());

async function post(tool: string, input: Record<string, unknown>, response: unknown, extra = {}) {
  const body = JSON.stringify(
    toolInput(repo.dir, tool, input, { hook_event_name: "PostToolUse", tool_response: response, ...extra }),
  );
  return (await handleHook("post-tool-use", body, { projectDir: repo.dir, fallbackDir: repo.dir })) as {
    decision?: string;
    reason?: string;
  };
}
const bash = (stdout: string) => ({ stdout, stderr: "", interrupted: false, isImage: false });
const readJson = (path: string) => JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;

describe("post-tool-use: binding gate-in to the Claude session", () => {
  it("records the session in the checkpoint and the marker named by BATON_SESSION", async () => {
    const task = repo.tasks[0]!;
    const d = repo.delegate({ task, batonSession: "sess_17_aa11" });
    const stdout = `GATE IN passed for task ${task}\nBATON_SESSION: sess_17_aa11\nInvoke agent researcher\n`;
    const reply = await post("Bash", { command: `baton gate-in research ${task}` }, bash(stdout));
    expect(reply).toEqual({});
    expect(readJson(d.checkpointPath)).toMatchObject({
      sessionId: "sess_17_aa11",
      claudeSessionId: "claude-main",
    });
    expect(readJson(d.markerPath)).toMatchObject({
      session_id: "sess_17_aa11",
      claude_session_id: "claude-main",
    });
    expect(hookLog(repo.dir).at(-1)).toMatchObject({ note: "bound claude session", task });
  });

  it("never rebinds a checkpoint, and ignores other commands and sessions", async () => {
    const task = repo.tasks[0]!;
    const d = repo.delegate({ task, batonSession: "sess_1_b", claudeSessionId: "claude-first" });
    await post("Bash", { command: `baton gate-in research ${task}` }, bash("BATON_SESSION: sess_1_b\n"));
    expect(readJson(d.checkpointPath)["claudeSessionId"]).toBe("claude-first");

    const other = repo.delegate({ task: repo.tasks[1]!, batonSession: "sess_2_c" });
    await post("Bash", { command: "echo BATON_SESSION: sess_2_c" }, bash("BATON_SESSION: sess_2_c\n"));
    await post("Bash", { command: "baton gate-in plan 9" }, bash("BATON_SESSION: sess_9_none\n"));
    expect(readJson(other.checkpointPath)["claudeSessionId"]).toBeUndefined();
  });
});

describe("post-tool-use: store validation", () => {
  it("blocks with file and line when state.json no longer parses", async () => {
    const state = join(repo.dir, "specs/state.json");
    writeFileSync(state, readFileSync(state, "utf8").replace('"status"', '"status" "oops"'));
    const reply = await post("Bash", { command: "sed -i s/a/b/ specs/state.json" }, bash(""));
    expect(reply.decision).toBe("block");
    expect(reply.reason).toMatch(/specs\/state\.json:\d+:\d+: invalid JSON/);
    expect(reply.reason).toContain("baton doctor");
  });

  it("blocks when TODO.md and state.json disagree after an edit", async () => {
    const todo = join(repo.dir, "specs/TODO.md");
    const task = repo.tasks[0]!;
    const text = readFileSync(todo, "utf8");
    const marker = /### (\d+)\.[^\n]*\n(?:[^\n]*\n)*?- \*\*Status\*\*: \[([A-Z ]+)\]/.exec(text)!;
    writeFileSync(todo, text.replace(`[${marker[2]}]`, marker[2] === "BLOCKED" ? "[PLANNED]" : "[BLOCKED]"));
    const reply = await post("Edit", { file_path: todo, old_string: "a", new_string: "b" }, {});
    expect(reply.decision).toBe("block");
    expect(reply.reason).toContain(`task ${marker[1] ?? task}`);
  });

  it("stays silent for a valid store and for unrelated commands", async () => {
    expect(await post("Bash", { command: "cat specs/state.json" }, bash("{}"))).toEqual({});
    writeFileSync(join(repo.dir, "specs/state.json"), "{");
    expect(await post("Bash", { command: "npm test" }, bash("ok"))).toEqual({});
    expect(await post("Write", { file_path: join(repo.dir, "src/a.ts"), content: "" }, {})).toEqual({});
  });
});
