import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  askPreToolUse,
  decisionOf,
  type HookRepo,
  hookLog,
  hookRepo,
  reasonOf,
} from "../testing/hook-fixture.js";

let repo: HookRepo;
beforeEach(() => {
  repo = hookRepo();
});
afterEach(() => repo.cleanup());

const pre = (tool: string, input: Record<string, unknown>, extra = {}) =>
  askPreToolUse(repo.dir, tool, input, extra);
const SUB = { agent_id: "a1b2", agent_type: "researcher" };

describe("pre-tool-use rule 1: Baton's files", () => {
  it.each([
    ["Write", "specs/state.json"],
    ["Edit", "specs/TODO.md"],
    ["MultiEdit", "specs/archive/state.json"],
    ["Write", "specs/errors.json"],
    ["Write", "specs/3_x/.baton-postflight-pending"],
    ["Edit", "specs/3_x/.baton-postflight-loop-guard"],
    ["Write", "specs/.baton/checkpoints/3.json"],
  ])("denies %s of %s to the main thread and to sub-agents", async (tool, path) => {
    const file_path = join(repo.dir, path);
    expect(decisionOf(await pre(tool, { file_path, content: "{}" }))).toBe("deny");
    expect(decisionOf(await pre(tool, { file_path, content: "{}" }, SUB))).toBe("deny");
  });

  it("names the gate that records results, and no command that moves a task past it", async () => {
    const reply = await pre("Edit", { file_path: join(repo.dir, "specs/state.json") });
    expect(reasonOf(reply)).toContain("baton gate-out");
    expect(reasonOf(reply)).not.toMatch(/task status|task edit|--force/);
    const marker = await pre("Write", { file_path: join(repo.dir, "specs/3_x/.baton-postflight-pending") });
    expect(reasonOf(marker)).toContain("baton gate-out");
  });

  it("allows every other file, relative paths included", async () => {
    expect(await pre("Write", { file_path: join(repo.dir, "src/state.json") })).toEqual({});
    expect(await pre("Write", { file_path: "specs/3_x/reports/research-001.md" })).toEqual({});
    expect(await pre("Read", { file_path: join(repo.dir, "specs/state.json") })).toEqual({});
  });

  it("denies Bash commands that write them, not those that read them", async () => {
    const denied = await pre("Bash", { command: "jq '.x=1' specs/state.json > specs/state.json" });
    expect(decisionOf(denied)).toBe("deny");
    expect(reasonOf(denied)).toContain("redirecting output");
    expect(await pre("Bash", { command: "jq . specs/state.json" })).toEqual({});
  });

  it("honours specsDir from baton.config.json", async () => {
    const { writeFileSync } = await import("node:fs");
    writeFileSync(join(repo.dir, "baton.config.json"), JSON.stringify({ specsDir: "work/specs" }));
    expect(decisionOf(await pre("Write", { file_path: join(repo.dir, "work/specs/state.json") }))).toBe(
      "deny",
    );
    expect(await pre("Write", { file_path: join(repo.dir, "specs/state.json") })).toEqual({});
  });
});

describe("pre-tool-use rule 1: the scripts a host's hooks run outside any sandbox", () => {
  const settings = JSON.stringify({
    hooks: { PostToolUse: [{ hooks: [{ type: "command", command: "bash .claude/hooks/format.sh" }] }] },
  });

  it("denies writing one, or a neighbour it may source, to the main thread and to sub-agents, by any path", async () => {
    mkdirSync(join(repo.dir, ".claude/hooks"), { recursive: true });
    writeFileSync(join(repo.dir, ".claude/settings.json"), settings);
    writeFileSync(join(repo.dir, ".claude/hooks/format.sh"), "exit 0\n");
    symlinkSync(join(repo.dir, ".claude/hooks/format.sh"), join(repo.dir, "notes.sh"));
    for (const path of [".claude/hooks/format.sh", ".claude/hooks/lib.sh", "notes.sh"]) {
      for (const extra of [{}, SUB]) {
        const reply = await pre(
          "Write",
          { file_path: join(repo.dir, path), content: "cat ~/.config/baton/*" },
          extra,
        );
        expect(decisionOf(reply), path).toBe("deny");
        expect(reasonOf(reply)).toContain("outside any sandbox");
      }
    }
    // A script no hook runs is the repository's own work.
    expect(
      decisionOf(await pre("Write", { file_path: join(repo.dir, "scripts/build.sh"), content: "" })),
    ).not.toBe("deny");
  });
});

describe("pre-tool-use rule 2: the main thread does not do delegated work", () => {
  it("denies main-thread edits outside specs while this session's delegation is open", async () => {
    const task = repo.tasks[0]!;
    repo.delegate({ task, claudeSessionId: "claude-main", agent: "researcher", batonSession: "sess_1_abc" });
    const reply = await pre("Edit", { file_path: join(repo.dir, "src/index.ts") });
    expect(decisionOf(reply)).toBe("deny");
    expect(reasonOf(reply)).toContain(`Task ${task}'s research is delegated to agent researcher`);
    expect(reasonOf(reply)).toContain(`baton gate-out research ${task} --session sess_1_abc`);
    expect(hookLog(repo.dir).at(-1)).toMatchObject({ decision: "deny", task, tool: "Edit" });
  });

  it("names the host's own sub-agent tool and the installed command", async () => {
    const task = repo.tasks[0]!;
    repo.delegate({ task, claudeSessionId: "ses_oc", agent: "researcher", batonSession: "sess_1_abc" });
    const { writeFileSync, mkdirSync } = await import("node:fs");
    mkdirSync(join(repo.dir, ".baton"), { recursive: true });
    writeFileSync(
      join(repo.dir, ".baton/init.json"),
      JSON.stringify({ bin: "node /opt/baton/bin/baton.js" }),
    );
    const src = { file_path: join(repo.dir, "src/index.ts") };
    const opencode = reasonOf(await pre("Write", src, { session_id: "ses_oc", baton_host: "opencode" }));
    expect(opencode).toContain('call the task tool with subagent_type "researcher"');
    expect(opencode).not.toContain("Agent tool");
    expect(opencode).toContain("`node /opt/baton/bin/baton.js gate-out research");
    const claude = reasonOf(await pre("Write", src, { session_id: "ses_oc" }));
    expect(claude).toContain('Agent tool (subagent_type "researcher", run_in_background: false)');
  });

  it("allows the sub-agent, files inside specs, and other sessions", async () => {
    const task = repo.tasks[0]!;
    const { folder } = repo.delegate({ task, claudeSessionId: "claude-main" });
    const src = { file_path: join(repo.dir, "src/index.ts") };
    expect(await pre("Write", src, SUB)).toEqual({});
    expect(await pre("Write", { file_path: join(folder, "reports/research-001.md") })).toEqual({});
    expect(await pre("Write", src, { session_id: "claude-other" })).toEqual({});
  });

  it("treats a checkpoint not yet bound to a session as this session's", async () => {
    repo.delegate({ task: repo.tasks[1]! });
    expect(decisionOf(await pre("Write", { file_path: join(repo.dir, "a.ts") }, { session_id: "x" }))).toBe(
      "deny",
    );
  });

  it("allows edits when no delegation is open", async () => {
    expect(await pre("Write", { file_path: join(repo.dir, "src/index.ts") })).toEqual({});
  });
});

describe("pre-tool-use rule 3: the delegated agent runs in the foreground", () => {
  const call = { description: "research", prompt: "go", subagent_type: "researcher" };

  it("rewrites a background Agent or Task call, keeping the rest of its input", async () => {
    repo.delegate({ task: repo.tasks[0]!, claudeSessionId: "claude-main" });
    for (const tool of ["Agent", "Task"]) {
      const reply = await pre(tool, call);
      expect(reply.hookSpecificOutput).toMatchObject({
        permissionDecision: "allow",
        updatedInput: { ...call, run_in_background: false },
      });
      expect(decisionOf(await pre(tool, { ...call, run_in_background: true }))).toBe("allow");
    }
    expect(hookLog(repo.dir).at(-1)).toMatchObject({ decision: "updated", tool: "Task" });
  });

  it("binds an unbound delegation to the session that calls its agent", async () => {
    const { readFileSync } = await import("node:fs");
    const task = repo.tasks[0]!;
    const d = repo.delegate({ task, agent: "researcher" });
    await pre("Agent", { ...call, subagent_type: "Explore" });
    expect(JSON.parse(readFileSync(d.checkpointPath, "utf8")).claudeSessionId).toBeUndefined();
    const reply = await pre("Agent", { ...call, run_in_background: false });
    expect(reply).toEqual({});
    expect(JSON.parse(readFileSync(d.checkpointPath, "utf8")).claudeSessionId).toBe("claude-main");
    expect(JSON.parse(readFileSync(d.markerPath, "utf8")).claude_session_id).toBe("claude-main");
    expect(hookLog(repo.dir).at(-1)).toMatchObject({ note: "bound claude session", task });
    // now it is this session's: another session's main thread may edit again
    expect(await pre("Write", { file_path: join(repo.dir, "a.ts") }, { session_id: "claude-other" })).toEqual(
      {},
    );
  });

  it("leaves foreground calls and calls outside a delegation alone", async () => {
    expect(await pre("Agent", call)).toEqual({});
    repo.delegate({ task: repo.tasks[0]!, claudeSessionId: "claude-main" });
    expect(await pre("Agent", { ...call, run_in_background: false })).toEqual({});
    expect(await pre("Agent", call, { session_id: "claude-other" })).toEqual({});
  });
});
