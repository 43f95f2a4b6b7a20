import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { hookSession } from "../hosts/index.js";
import { readDelegation } from "../state/delegation-log.js";
import { endSession, keyReachableBy, registerSession } from "../state/live-sessions.js";
import { type HookRepo, hookLog, hookRepo, toolInput } from "../testing/hook-fixture.js";
import { handleHook } from "./dispatch.js";
import { weakenedSettings } from "./settings-guard.js";

let repo: HookRepo;
const STOP = { hooks: [{ type: "command", command: "baton hook stop" }] };
beforeEach(() => {
  repo = hookRepo();
  mkdirSync(join(repo.dir, ".baton"), { recursive: true });
  mkdirSync(join(repo.dir, ".claude"), { recursive: true });
  writeFileSync(
    join(repo.dir, ".baton/init.json"),
    JSON.stringify({ hostSandbox: undefined, settings: { hooks: [{ event: "Stop", group: STOP }] } }),
  );
  writeSettings("settings.json", { sandbox: { enabled: true }, hooks: { Stop: [STOP] } });
});
afterEach(() => repo.cleanup());

function writeSettings(name: string, value: unknown): void {
  writeFileSync(join(repo.dir, ".claude", name), JSON.stringify(value));
}

const EVENT_NAMES: Record<string, string> = { "post-tool-use": "PostToolUse", "pre-tool-use": "PreToolUse" };
const call = (event: string, tool: string, input: Record<string, unknown>) =>
  handleHook(
    event,
    JSON.stringify(toolInput(repo.dir, tool, input, { hook_event_name: EVENT_NAMES[event] })),
    {
      projectDir: repo.dir,
      fallbackDir: repo.dir,
    },
  ) as Promise<{ hookSpecificOutput?: Record<string, unknown> }>;

describe("the hosts' settings weaker than baton init left them", () => {
  it("names each weakening, and not a person's own additions", () => {
    expect(weakenedSettings(repo.project)).toEqual([]);
    writeSettings("settings.local.json", { permissions: { allow: ["Bash(npm test:*)"] } });
    expect(weakenedSettings(repo.project)).toEqual([]);
    writeSettings("settings.local.json", { sandbox: { enabled: false }, disableAllHooks: true });
    expect(weakenedSettings(repo.project)).toEqual([
      ".claude/settings.local.json turns Claude Code's sandbox off",
      ".claude/settings.local.json disables every hook",
    ]);
    writeSettings("settings.json", { hooks: {} });
    expect(weakenedSettings(repo.project)).toContain(".claude/settings.json no longer has Baton's Stop hook");
  });

  it("is kept in the delegation log after the tool call that saw it, even once the settings are put back", async () => {
    const delegation = repo.delegate({ task: repo.tasks[0]!, claudeSessionId: "claude-1" });
    writeSettings("settings.local.json", { sandbox: { enabled: false } });
    await call("post-tool-use", "Write", { file_path: join(repo.dir, "notes.md"), content: "x" });
    // Any later command is refused while the sandbox is off, whatever its form.
    const denied = await call("pre-tool-use", "Bash", { command: "cat ~/.config/whatever" });
    expect(denied.hookSpecificOutput?.["permissionDecision"]).toBe("deny");
    writeSettings("settings.local.json", {});
    const view = readDelegation(join(repo.dir, "specs/.baton"), delegation.batonSession);
    expect(view.guards, JSON.stringify(hookLog(repo.dir))).toHaveLength(1);
    expect(view.guards[0]).toContain("turns Claude Code's sandbox off (after a Write call by main");
  });
});

describe("whether a session's commands can read the signing key", () => {
  it("says so for opencode, and for Claude Code with its sandbox off here, shared or local", async () => {
    expect(hookSession(undefined).keyReach(repo.project.root)).toBeUndefined();
    expect(hookSession("opencode").keyReach(repo.project.root)).toBe(
      "opencode runs the model's commands without a sandbox",
    );
    writeSettings("settings.local.json", { sandbox: { enabled: false } });
    expect(hookSession(undefined).keyReach(repo.project.root)).toMatch(
      /^Claude Code's sandbox is off in this repository/,
    );
    writeSettings("settings.local.json", {});
    writeSettings("settings.json", { hooks: {} });
    expect(hookSession(undefined).keyReach(repo.project.root)).toMatch(/^Claude Code's sandbox is off/);
  });

  it("is named while the live session that has it lives", () => {
    const internal = join(repo.dir, "specs/.baton");
    registerSession(internal, "opencode-1", process.pid, hookSession("opencode").keyReach(repo.project.root));
    registerSession(internal, "claude-1", process.pid, hookSession(undefined).keyReach(repo.project.root));
    expect(keyReachableBy(internal)).toMatch(
      /^opencode runs the model's commands without a sandbox \(session opencode-1, process \d+\)$/,
    );
    endSession(internal, "opencode-1");
    expect(keyReachableBy(internal)).toBeUndefined();
  });
});
