import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleForTest } from "../testing/bundle.js";
import { type HookRepo, hookLog, hookRepo, toolInput } from "../testing/hook-fixture.js";

let bundle: string;
let work: string;
let repo: HookRepo;
beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "baton-hook-main-"));
  bundle = await bundleForTest({ entry: join(import.meta.dirname, "hook-main.ts") }, join(work, "hook.mjs"));
  repo = hookRepo();
});
afterAll(() => {
  repo.cleanup();
  rmSync(work, { recursive: true, force: true });
});

function runHook(event: string, stdin: string, projectDir = repo.dir) {
  const result = spawnSync(process.execPath, [bundle, "hook", event], {
    input: stdin,
    encoding: "utf8",
    env: { ...process.env, CLAUDE_PROJECT_DIR: projectDir },
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe("baton hook <event> as a process", () => {
  it("prints the reply as one JSON line and exits 0", () => {
    const input = toolInput(repo.dir, "Write", {
      file_path: join(repo.dir, "specs/state.json"),
      content: "",
    });
    const result = runHook("pre-tool-use", JSON.stringify(input));
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout).hookSpecificOutput.permissionDecision).toBe("deny");
    expect(result.stdout.trim().split("\n")).toHaveLength(1);
    // logs and counters never reach git
    const ignored = spawnSync("git", ["check-ignore", "-q", ".baton/logs/hooks.jsonl"], { cwd: repo.dir });
    expect(ignored.status).toBe(0);
  });

  it.each([
    ["pre-tool-use", "not json at all"],
    ["pre-tool-use", ""],
    ["post-tool-use", JSON.stringify({ session_id: "s", cwd: "/x", tool_name: "Bash", tool_input: "ls" })],
    ["stop", "[1,2]"],
    ["no-such-event", "{}"],
  ])("answers %s with {} for malformed input %j, and logs the problem", (event, stdin) => {
    const before = hookLog(repo.dir).length;
    const result = runHook(event, stdin);
    expect(result).toEqual({ status: 0, stdout: "{}\n", stderr: "" });
    const logged = hookLog(repo.dir).slice(before);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ decision: "allow", problem: expect.any(String) });
  });

  it("names the bad field of an input that does not match the schema", () => {
    runHook(
      "post-tool-use",
      JSON.stringify({ session_id: "s", cwd: repo.dir, tool_name: "Bash", tool_input: "ls" }),
    );
    expect(hookLog(repo.dir).at(-1)?.["problem"]).toContain("tool_input: expected record");
  });

  it("allows, with one stderr line and no stack, when even the log cannot be written", () => {
    const broken = mkdtempSync(join(work, "broken-"));
    writeFileSync(join(broken, ".baton"), "a file where a folder should be");
    const result = runHook("stop", JSON.stringify({ session_id: "s", cwd: broken }), broken);
    expect(result.status).toBe(0);
    expect(result.stdout).toBe("{}\n");
    expect(result.stderr).toMatch(/^baton hook: cannot write the hook log/);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});
