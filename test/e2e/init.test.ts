import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { BATON_BIN } from "../support/cli.js";
import { fails, ok, repo, runBaton } from "./helpers.js";

/** The absolute form, so Claude Code's Bash finds Baton without a PATH entry. */
const BIN = `node ${BATON_BIN}`;

const text = (dir: string, path: string) => readFileSync(join(dir, path), "utf8");

/** Runs a slash command's `!` line the way Claude Code does: $ARGUMENTS substituted, then `sh -c`. */
function runBang(dir: string, command: string, args: string): string {
  const line = /!`([^`]*)`/.exec(text(dir, `.claude/commands/${command}.md`))![1]!;
  return execFileSync("sh", ["-c", line.replace("$ARGUMENTS", args)], { cwd: dir, encoding: "utf8" });
}

describe("baton init (CLI)", () => {
  it("installs, is idempotent, and uninstalls to nothing", () => {
    const dir = repo();
    const first = ok(dir, ["init", "--bin", BIN]);
    expect(first.stdout).toContain("Installing Baton's Claude Code integration");
    expect(first.stdout).toContain("created .claude/commands/research.md");
    expect(first.stdout).toContain("In Claude Code: /task add …");
    expect(first.stdout).toContain(
      "hooks added to .claude/settings.json: SessionStart, PreToolUse, PostToolUse, PostToolUseFailure, Stop, SubagentStart, SubagentStop, SessionEnd",
    );
    // With Claude Code's sandbox on, command hooks forwarding to a resident server are the default: HTTP
    // hooks would travel through the sandbox's proxy, which refuses 127.0.0.1.
    expect(first.stdout).toContain("reach Baton in every permission mode");
    const settings = JSON.parse(text(dir, ".claude/settings.json"));
    expect(settings.hooks.SessionEnd[0].hooks[0]).toEqual({
      type: "command",
      command: `${BIN} hook session-end`,
    });
    expect(text(dir, ".claude/commands/implement.md")).toContain(`!\`${BIN} gate-in implement $ARGUMENTS\``);
    expect(runBang(dir, "task", 'add "Relayed from a slash command"')).toContain(
      "Created task 1: Relayed from a slash command",
    );

    const before = text(dir, ".claude/settings.json") + text(dir, ".baton/init.json");
    expect(ok(dir, ["init"]).stdout).toContain("is up to date; nothing changed");
    expect(text(dir, ".claude/settings.json") + text(dir, ".baton/init.json")).toBe(before);

    const removed = ok(dir, ["init", "--uninstall"]).stdout;
    expect(removed).toContain("Removing Baton's Claude Code integration");
    expect(removed).toContain("removed .claude/commands/research.md");
    expect(existsSync(join(dir, ".claude"))).toBe(false);
    expect(existsSync(join(dir, ".baton"))).toBe(false);
  });

  it("names each host it installs and removes, and how to start in each", () => {
    const dir = repo();
    const alone = ok(dir, ["init", "--bin", BIN, "--host", "opencode"]).stdout;
    expect(alone).toContain("Installing Baton's opencode integration");
    expect(alone).toContain("In opencode: the same commands");
    expect(alone).not.toContain("In Claude Code");
    const both = ok(dir, ["init"]).stdout;
    expect(both).toContain("Baton's opencode integration in");
    ok(dir, ["init", "--uninstall"]);
    ok(dir, ["init"]);
    expect(ok(dir, ["init", "--host", "opencode"]).stdout).toContain(
      "Installing Baton's Claude Code and opencode integration",
    );
    const three = ok(dir, ["init", "--host", "codex"]).stdout;
    expect(three).toContain("Baton's Claude Code, opencode and Codex CLI integration");
    expect(three).toContain("In Codex: run `codex exec");
    expect(ok(dir, ["init", "--uninstall"]).stdout).toContain(
      "Removing Baton's Claude Code, opencode and Codex CLI integration",
    );
  });

  it("every host's deny rules name the store where the configuration keeps it, at the first init and every re-run", () => {
    const dir = repo();
    writeFileSync(join(dir, "baton.config.json"), JSON.stringify({ specsDir: "work/tasks" }));
    ok(dir, ["init", "--bin", BIN]);
    const denied = () =>
      JSON.parse(text(dir, ".claude/settings.json")).sandbox.filesystem.denyWrite as string[];
    expect(denied()).toContain("./work/tasks/state.json");
    expect(denied()).not.toContain("./specs/state.json");
    ok(dir, ["init", "--host", "opencode"]);
    const edits = () => Object.keys(JSON.parse(text(dir, "opencode.json")).permission.edit);
    expect(edits()).toContain("work/tasks/state.json");
    expect(edits()).not.toContain("specs/state.json");
    // A plain re-run keeps opencode installed, and keeps its rules on the configured store.
    ok(dir, ["init"]);
    expect(edits()).toContain("work/tasks/state.json");
    expect(denied()).toContain("./work/tasks/state.json");
  });

  it("Claude Code's sandbox keeps commands from writing the scripts the person's hooks run", () => {
    const dir = repo();
    mkdirSync(join(dir, ".claude/hooks"), { recursive: true });
    writeFileSync(
      join(dir, ".claude/settings.json"),
      JSON.stringify({
        hooks: { Stop: [{ hooks: [{ type: "command", command: "bash .claude/hooks/notify.sh" }] }] },
      }),
    );
    ok(dir, ["init", "--bin", BIN]);
    const settings = JSON.parse(text(dir, ".claude/settings.json"));
    expect(settings.sandbox.filesystem.denyWrite).toContain("./.claude/hooks");
    expect(settings.hooks.Stop.map((g: { hooks: { command: string }[] }) => g.hooks[0]?.command)).toContain(
      "bash .claude/hooks/notify.sh",
    );
  });

  it("warns when the hosts would run Baton from inside the repository, where an agent's commands can rewrite it", () => {
    const dir = repo();
    mkdirSync(join(dir, "node_modules/.bin"), { recursive: true });
    writeFileSync(join(dir, "node_modules/.bin/baton"), "#!/bin/sh\n", { mode: 0o755 });
    const inside = ok(dir, ["init", "--bin", join(dir, "node_modules/.bin/baton")]).stdout;
    expect(inside).toContain(
      "warning: the hosts run Baton from inside this repository (node_modules/.bin/baton), where an agent's commands can rewrite it",
    );
    expect(ok(dir, ["init", "--bin", BIN]).stdout).not.toContain("from inside this repository");
  });

  it("a store kept outside the repository: Claude Code's sandbox denies it by its absolute path; opencode refuses it", () => {
    const dir = repo();
    const outside = join(dir, "..", `${dir.split("/").pop()}-store`);
    writeFileSync(join(dir, "baton.config.json"), JSON.stringify({ specsDir: outside }));
    try {
      ok(dir, ["init", "--bin", BIN]);
      const denied = JSON.parse(text(dir, ".claude/settings.json")).sandbox.filesystem.denyWrite as string[];
      expect(denied).toContain(`/${outside}/state.json`);
      const before = text(dir, ".baton/init.json");
      const refused = fails(dir, ["init", "--host", "opencode"], 2);
      expect(refused.stderr).toContain(`specsDir ${outside} is outside the repository`);
      expect(existsSync(join(dir, "opencode.json"))).toBe(false);
      expect(text(dir, ".baton/init.json")).toBe(before);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it("removes what a killed init left half-written, at the next init and at --uninstall, never a live writer's", () => {
    const dir = repo();
    ok(dir, ["init", "--bin", BIN]);
    const dead = 2 ** 22 + 4321;
    const left = [
      `.claude/agents/.baton-researcher.md.baton-${dead}-0badf00d.tmp`,
      `.claude/commands/.plan.md.baton-${dead}-0badf00d.tmp`,
      `.baton/.init.json.baton-${dead}-0badf00d.tmp`,
      // A killed `--host` init's, in a host's folders that are not installed here.
      `.opencode/agent/.baton-researcher.md.baton-${dead}-0badf00d.tmp`,
      `.codex/.hooks.json.baton-${dead}-0badf00d.tmp`,
    ];
    for (const folder of [".opencode/agent", ".codex"]) mkdirSync(join(dir, folder), { recursive: true });
    const live = `.claude/agents/.baton-planner.md.baton-${process.pid}-0badf00d.tmp`;
    for (const path of [...left, live]) writeFileSync(join(dir, path), "half");
    expect(ok(dir, ["init"]).stdout).toContain("is up to date; nothing changed");
    for (const path of left) expect(existsSync(join(dir, path)), path).toBe(false);
    expect(existsSync(join(dir, live))).toBe(true);
    for (const path of left) writeFileSync(join(dir, path), "half");
    writeFileSync(join(dir, live.replace(String(process.pid), String(dead))), "half");
    rmSync(join(dir, live));
    ok(dir, ["init", "--uninstall"]);
    expect(existsSync(join(dir, ".claude"))).toBe(false);
    expect(existsSync(join(dir, ".baton"))).toBe(false);
  });

  it("names the repository's own commands that write the store, which a session will refuse, and what to use", () => {
    const dir = repo();
    mkdirSync(join(dir, ".claude/commands"), { recursive: true });
    writeFileSync(
      join(dir, ".claude/commands/learn.md"),
      "---\ndescription: learn\n---\n\n```bash\njq '.active_projects[0].status = \"completed\"' specs/state.json > /tmp/s.json && mv /tmp/s.json specs/state.json\n```\n",
    );
    const first = ok(dir, ["init", "--bin", BIN]);
    expect(first.stdout).toMatch(
      /warning: 1 of this repository's own commands, skills or scripts write specs\/state\.json or TODO\.md themselves \(\.claude\/commands\/learn\.md:\d+\): in a session Baton refuses those writes/,
    );
    expect(first.stdout).toContain("baton task status N <status>");
    // Their CLAUDE.md, read as CommonMark: the lines that tell the model to write status or commit with the id.
    writeFileSync(
      join(dir, "CLAUDE.md"),
      "# Rules\n\n## State\n\nUpdate state.json first, then TODO.md.\n\n## Git Commits\n\nFormat: `task {N}: {action}` with session ID in body.\n\nstate.json = machine truth.\n",
    );
    expect(ok(dir, ["init", "--bin", BIN]).stdout).toContain(
      "2 line(s) of this repository's standing instructions (CLAUDE.md, AGENTS.md, rules) tell the model to write task status, the store or its own session commits (CLAUDE.md:5, CLAUDE.md:9)",
    );
    // Baton's own files write nothing of the store: a plain repository gets no such warning.
    expect(ok(repo(), ["init", "--bin", BIN]).stdout).not.toContain("write specs/state.json");
  });

  it("defaults to node and the absolute bin/baton.js when baton is not on PATH", () => {
    const dir = repo();
    // Only node's own folder on PATH: a globally installed baton must not change the answer.
    const run = runBaton(dir, ["init", dir, "--json"], { PATH: dirname(process.execPath) });
    expect(run.status).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result.bin).toBe(`node ${BATON_BIN}`);
    expect(result.written).toBe(true);
  });

  it("quotes a bin path with spaces so the ! line really runs", () => {
    const dir = repo();
    const tools = join(dir, "my tools");
    mkdirSync(tools);
    writeFileSync(join(tools, "baton"), `#!/bin/sh\nexec node '${BATON_BIN}' "$@"\n`, { mode: 0o755 });
    ok(dir, ["init", "--bin", join(tools, "baton")]);
    ok(dir, ["task", "add", "First task"]);
    expect(text(dir, ".claude/commands/errors.md")).toContain(`Bash('${tools}/baton' errors:*)`);
    expect(runBang(dir, "errors", "")).toContain("No matching errors");
  });

  it("--dry-run prints unified diffs and writes nothing", () => {
    const dir = repo();
    const result = ok(dir, ["init", "--bin", BIN, "--dry-run"]);
    expect(result.stdout).toContain("--- /dev/null\n+++ b/.claude/commands/plan.md\n@@ -0,0 +1,");
    expect(result.stdout).toContain("+++ b/.claude/settings.json");
    expect(result.stdout).toContain("(dry run, nothing written)");
    expect(existsSync(join(dir, ".claude"))).toBe(false);
    expect(existsSync(join(dir, ".baton"))).toBe(false);
  });

  it("refuses to overwrite a foreign command; --force keeps it as .bak", () => {
    const dir = repo();
    mkdirSync(join(dir, ".claude/commands"), { recursive: true });
    writeFileSync(join(dir, ".claude/commands/research.md"), "mine\n");
    const refused = fails(dir, ["init", "--bin", BIN]);
    expect(refused.stdout).toContain(
      "conflict: .claude/commands/research.md exists and was not written by baton init",
    );
    expect(refused.stdout).toContain(
      "Re-run with --force to overwrite it; the current file is kept as research.md.bak.",
    );
    expect(existsSync(join(dir, ".claude/settings.json"))).toBe(false);

    expect(ok(dir, ["init", "--bin", BIN, "--force"]).stdout).toContain(
      "backed up .claude/commands/research.md → .claude/commands/research.md.bak",
    );
    expect(text(dir, ".claude/commands/research.md.bak")).toBe("mine\n");
  });

  it("reports invalid settings.json with file and line, writing nothing", () => {
    const dir = repo();
    mkdirSync(join(dir, ".claude"));
    writeFileSync(join(dir, ".claude/settings.json"), '{\n  "hooks": {\n    "Stop": [,]\n  }\n}\n');
    const result = fails(dir, ["init", "--bin", BIN]);
    expect(result.stderr).toMatch(/\.claude\/settings\.json:3:\d+: invalid JSON/);
    expect(existsSync(join(dir, ".claude/commands"))).toBe(false);
    expect(existsSync(join(dir, ".baton"))).toBe(false);
  });

  it("--hooks http points the per-tool-call hooks at baton serve, blocking when it cannot answer", () => {
    const dir = repo();
    ok(dir, ["init", "--bin", BIN, "--hooks", "http", "--port", "5999", "--host-sandbox", "off"]);
    const hooks = JSON.parse(text(dir, ".claude/settings.json")).hooks;
    const http = (name: string) => ({
      type: "http",
      url: `http://127.0.0.1:5999/hooks/${name}`,
      headers: { "X-Baton-Hook-Secret": "$BATON_HOOK_SECRET" },
      allowedEnvVars: ["BATON_HOOK_SECRET"],
      onFailure: "block",
    });
    expect(hooks.PreToolUse[0]).toEqual({
      matcher: "Write|Edit|MultiEdit|NotebookEdit|Bash|Agent|Task",
      hooks: [http("pre-tool-use")],
    });
    expect(hooks.PostToolUse[0].hooks).toEqual([http("post-tool-use")]);
    expect(hooks.PostToolUseFailure[0].hooks).toEqual([http("post-tool-use-failure")]);
    expect(hooks.SubagentStart[0].hooks).toEqual([http("subagent-start")]);
    // Claude Code ignores onFailure on these two: an unreachable server would let an agent stop.
    expect(hooks.Stop[0].hooks).toEqual([{ type: "command", command: `${BIN} hook stop`, timeout: 600 }]);
    expect(hooks.SubagentStop[0].hooks).toEqual([{ type: "command", command: `${BIN} hook subagent-stop` }]);
    expect(hooks.SessionStart[0].hooks).toEqual([
      { type: "command", command: `${BIN} hook session-start --port 5999` },
    ]);
  });

  it("rejects bad options with exit 2", () => {
    const dir = repo();
    expect(fails(dir, ["init", "--port", "80"], 2).stderr).toContain("--port only applies to HTTP hooks");
    expect(fails(dir, ["init", "--hooks", "smoke"], 2).stderr).toContain(
      '--hooks must be "command", "http" or "resident"',
    );
    expect(runBaton(dir, ["init", join(dir, "missing")]).status).toBe(2);
  });
});
