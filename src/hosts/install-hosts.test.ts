import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { shellQuote } from "../init/bin.js";
import { readManifest } from "../init/manifest.js";
import { readText, TEST_BIN, tempRepo, tree } from "../init/test-repo.js";
import { repositoryPort } from "../shared/hook-port.js";
import { FileFormatError } from "../shared/index.js";
import { packageRoot } from "../shared/package.js";
import { runInit } from "./index.js";

const COMMANDS = ["approve", "errors", "implement", "plan", "reject", "research", "revise", "task", "todo"];
const AGENTS = ["baton-implementer.md", "baton-planner.md", "baton-researcher.md", "baton-reviser.md"];

function settings(root: string) {
  return JSON.parse(readText(root, ".claude/settings.json"));
}

function frontmatter(text: string): Record<string, string> {
  return parseYaml(/^---\n([\s\S]*?)\n---\n/.exec(text)![1]!);
}

/** The resident forwarder every per-call hook runs when Claude Code's sandbox is on. */
const FORWARDER = shellQuote(join(packageRoot(), "bin", "baton-hook"));

describe("baton init: fresh repository", () => {
  it("installs commands, agents, hooks, permissions and a manifest", async () => {
    const root = tempRepo();
    const result = await runInit({ root, bin: TEST_BIN });
    expect(result.written).toBe(true);
    expect(readdirSync(join(root, ".claude/commands")).sort()).toEqual(COMMANDS.map((c) => `${c}.md`));
    expect(readdirSync(join(root, ".claude/agents")).sort()).toEqual(AGENTS);
    expect(readText(root, ".claude/agents/baton-researcher.md")).toBe(
      readText(join(import.meta.dirname, "../.."), "agents/baton-researcher.md"),
    );

    const research = readText(root, ".claude/commands/research.md");
    expect(frontmatter(research)).toEqual({
      description: expect.stringContaining("Research a task"),
      "argument-hint": "<task-number> [focus]",
      "allowed-tools": `Bash(${TEST_BIN} gate-in:*), Bash(${TEST_BIN} gate-out:*), Agent, Read`,
    });
    expect(research).toContain(`\n!\`${TEST_BIN} gate-in research $ARGUMENTS\`\n`);
    expect(research).toContain(`\`${TEST_BIN} gate-out research $0 --session <id>\``);
    expect(research).toContain("run_in_background: false");
    expect(readText(root, ".claude/commands/task.md")).toContain(`!\`${TEST_BIN} task $ARGUMENTS\``);
    expect(frontmatter(readText(root, ".claude/commands/todo.md"))["argument-hint"]).toBe("[--dry-run]");
    expect(readText(root, ".claude/commands/todo.md")).toContain(`!\`${TEST_BIN} archive $ARGUMENTS\``);
    expect(frontmatter(readText(root, ".claude/commands/errors.md"))["allowed-tools"]).toBe(
      `Bash(${TEST_BIN} errors:*)`,
    );

    // With Claude Code's sandbox on (the default), its HTTP hooks would go through the sandbox's proxy, which
    // refuses 127.0.0.1: the hooks are command hooks forwarding to the resident server, which reach Baton in
    // every permission mode.
    const s = settings(root);
    expect(s.hooks.PreToolUse).toEqual([
      {
        matcher: "Write|Edit|MultiEdit|NotebookEdit|Bash|Agent|Task",
        hooks: [{ type: "command", command: `${FORWARDER} pre-tool-use` }],
      },
    ]);
    expect(JSON.stringify(s.hooks)).not.toContain('"http"');
    expect(s.hooks.PostToolUse[0].hooks[0]).toEqual({
      type: "command",
      command: `${FORWARDER} post-tool-use`,
    });
    expect(s.hooks.SessionStart[0].hooks[0].command).toBe(`${TEST_BIN} hook session-start`);
    expect(s.hooks.SessionEnd[0].hooks[0].command).toBe(`${TEST_BIN} hook session-end`);
    expect(s.hooks.Stop).toEqual([
      { hooks: [{ type: "command", command: `${FORWARDER} stop`, timeout: 600 }] },
    ]);
    expect(s.permissions.allow).toContain(`Bash(${TEST_BIN} gate-in:*)`);

    const { manifest } = readManifest(root)!;
    expect(manifest.files).toHaveLength(COMMANDS.length + AGENTS.length);
    expect(manifest.settings!.created).toBe(true);
    expect(manifest).toMatchObject({ hooks: "resident" });
    expect(manifest.port).toBeUndefined();
    expect(manifest.settings!.hooks.map((h) => h.event)).toEqual([
      "SessionStart",
      "PreToolUse",
      "PostToolUse",
      "PostToolUseFailure",
      "Stop",
      "SubagentStart",
      "SubagentStop",
      "SessionEnd",
    ]);
  });

  it("is idempotent: the second run reports up to date and changes no byte", async () => {
    const root = tempRepo();
    await runInit({ root, bin: TEST_BIN });
    const before = tree(root);
    const again = await runInit({ root, bin: TEST_BIN });
    expect(again.upToDate).toBe(true);
    expect(again.written).toBe(false);
    expect(again.changes).toEqual([]);
    expect(tree(root)).toEqual(before);
    // Without --bin the recorded one is reused, so a plain re-run is up to date too.
    expect((await runInit({ root })).upToDate).toBe(true);
  });

  it("quotes a --bin path with spaces the same way in ! lines, allowed-tools and hooks", async () => {
    const root = tempRepo();
    const binDir = join(root, "my tools");
    mkdirSync(binDir);
    writeFileSync(join(binDir, "baton"), "#!/bin/sh\n", { mode: 0o755 });
    const result = await runInit({ root, bin: join(binDir, "baton") });
    const quoted = `'${binDir}/baton'`;
    expect(result.bin).toBe(quoted);
    const plan = readText(root, ".claude/commands/plan.md");
    expect(plan).toContain(`!\`${quoted} gate-in plan $ARGUMENTS\``);
    expect(frontmatter(plan)["allowed-tools"]).toBe(
      `Bash(${quoted} gate-in:*), Bash(${quoted} gate-out:*), Agent, Read`,
    );
    expect(settings(root).hooks.SessionStart[0].hooks[0].command).toBe(`${quoted} hook session-start`);
    expect(settings(root).hooks.SessionEnd[0].hooks[0].command).toBe(`${quoted} hook session-end`);
  });
});

describe("baton init: existing settings", () => {
  const USER = `{
    "model": "opus",
    "permissions": { "allow": ["Bash(npm test:*)"], "deny": ["Read(.env)"] },
    "hooks": {
        "PreToolUse": [ { "matcher": "Bash", "hooks": [ { "type": "command", "command": "./lint.sh" } ] } ],
        "Stop": [ { "hooks": [ { "type": "command", "command": "./notify.sh" } ] } ]
    },
    "env": { "FOO": "1" }
}
`;

  it("merges beside the user's hooks and permissions, keeping their formatting", async () => {
    const root = tempRepo();
    mkdirSync(join(root, ".claude"));
    writeFileSync(join(root, ".claude/settings.json"), USER);
    await runInit({ root, bin: TEST_BIN });
    const text = readText(root, ".claude/settings.json");
    const s = JSON.parse(text);
    expect(s.model).toBe("opus");
    expect(s.env).toEqual({ FOO: "1" });
    // The user's deny rule first, then Baton's: no file tool may touch its key.
    expect(s.permissions.deny[0]).toBe("Read(.env)");
    expect(s.permissions.deny.slice(1)).toEqual(
      ["~/.config/baton/keys", "~/.config/baton/holdout", "./.baton/holdout"].flatMap((d) =>
        ["Read", "Edit", "Write"].map((t) => `${t}(${d}/**)`),
      ),
    );
    expect(s.permissions.allow[0]).toBe("Bash(npm test:*)");
    expect(s.hooks.PreToolUse[0]).toEqual({
      matcher: "Bash",
      hooks: [{ type: "command", command: "./lint.sh" }],
    });
    expect(s.hooks.PreToolUse[1].hooks[0]).toEqual({ type: "command", command: `${FORWARDER} pre-tool-use` });
    expect(s.hooks.Stop[0].hooks[0].command).toBe("./notify.sh");
    // The user's own lines survive byte for byte.
    expect(text).toContain('    "model": "opus",\n');
    expect(text).toContain('    "env": { "FOO": "1" }');
    expect(readManifest(root)!.manifest.settings!.created).toBe(false);

    const before = tree(root);
    expect((await runInit({ root, bin: TEST_BIN })).upToDate).toBe(true);
    expect(tree(root)).toEqual(before);
  });

  it("refuses settings.json that is not JSON, naming file and line, writing nothing", async () => {
    const root = tempRepo();
    mkdirSync(join(root, ".claude"));
    writeFileSync(join(root, ".claude/settings.json"), '{\n  "model": "opus",\n  "hooks": {,}\n}\n');
    const before = tree(root);
    const error = await runInit({ root, bin: TEST_BIN }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FileFormatError);
    expect((error as Error).message).toContain(".claude/settings.json:3:");
    expect(tree(root)).toEqual(before);
    expect(existsSync(join(root, ".claude/commands"))).toBe(false);
    expect(existsSync(join(root, ".baton"))).toBe(false);
  });

  it("refuses a settings.json whose hooks are not Claude Code's shape", async () => {
    const root = tempRepo();
    mkdirSync(join(root, ".claude"));
    writeFileSync(join(root, ".claude/settings.json"), '{"hooks": {"Stop": "x"}}');
    await expect(runInit({ root, bin: TEST_BIN })).rejects.toThrow(/hooks\.Stop: expected array/);
    expect(existsSync(join(root, ".baton"))).toBe(false);
  });
});

describe("baton init: conflicts, --force, --dry-run, http", () => {
  it("does not overwrite a foreign command file: conflict, hint, nothing written", async () => {
    const root = tempRepo();
    mkdirSync(join(root, ".claude/commands"), { recursive: true });
    writeFileSync(join(root, ".claude/commands/research.md"), "my own research command\n");
    const before = tree(root);
    const result = await runInit({ root, bin: TEST_BIN });
    expect(result.written).toBe(false);
    expect(result.conflicts).toEqual([
      {
        path: ".claude/commands/research.md",
        reason: "exists and was not written by baton init",
        hint: "Re-run with --force to overwrite it; the current file is kept as research.md.bak.",
      },
    ]);
    expect(tree(root)).toEqual(before);
  });

  it("--force backs the foreign file up, and uninstall puts it back", async () => {
    const root = tempRepo();
    mkdirSync(join(root, ".claude/commands"), { recursive: true });
    writeFileSync(join(root, ".claude/commands/research.md"), "my own research command\n");
    const result = await runInit({ root, bin: TEST_BIN, force: true });
    expect(result.written).toBe(true);
    expect(readText(root, ".claude/commands/research.md.bak")).toBe("my own research command\n");
    expect(readText(root, ".claude/commands/research.md")).toContain("gate-in research");
    expect((await runInit({ root, bin: TEST_BIN })).upToDate).toBe(true);
    await runInit({ root, uninstall: true });
    expect(readText(root, ".claude/commands/research.md")).toBe("my own research command\n");
    expect(readdirSync(join(root, ".claude/commands"))).toEqual(["research.md"]);
  });

  it("a Baton file the user edited is a conflict too", async () => {
    const root = tempRepo();
    await runInit({ root, bin: TEST_BIN });
    writeFileSync(join(root, ".claude/commands/plan.md"), "edited\n");
    const result = await runInit({ root, bin: "baton" });
    expect(result.conflicts.map((c) => [c.path, c.reason])).toEqual([
      [".claude/commands/plan.md", "changed since baton init wrote it"],
    ]);
  });

  it("--dry-run prints a unified diff of every file and writes nothing", async () => {
    const root = tempRepo();
    const result = await runInit({ root, bin: TEST_BIN, dryRun: true });
    expect(result.written).toBe(false);
    expect(existsSync(join(root, ".claude"))).toBe(false);
    expect(existsSync(join(root, ".baton"))).toBe(false);
    const paths = result.changes.map((c) => c.path);
    expect(paths).toContain(".claude/commands/research.md");
    expect(paths).toContain(".claude/settings.json");
    expect(paths).toContain(".baton/init.json");
    const diff = result.changes.find((c) => c.path === ".claude/commands/research.md")!.diff!;
    expect(diff).toMatch(
      /^--- \/dev\/null\n\+\+\+ b\/\.claude\/commands\/research\.md\n@@ -0,0 \+1,\d+ @@\n\+---\n/,
    );

    await runInit({ root, bin: TEST_BIN, hooks: "command" });
    const switched = await runInit({ root, hooks: "http", hostSandbox: "off", dryRun: true });
    const settingsDiff = switched.changes.find((c) => c.path === ".claude/settings.json")!.diff!;
    expect(settingsDiff).toContain(`-            "command": "${TEST_BIN} hook pre-tool-use"`);
    expect(settingsDiff).toContain(
      `+            "url": "http://127.0.0.1:${repositoryPort(root)}/hooks/pre-tool-use"`,
    );
    expect(JSON.parse(readText(root, ".claude/settings.json")).hooks.PreToolUse[0].hooks[0].type).toBe(
      "command",
    );
  });

  it("--hooks http installs HTTP hooks on the port, and switching back replaces only Baton's", async () => {
    const root = tempRepo();
    await runInit({ root, bin: TEST_BIN, hooks: "http", port: 5123, hostSandbox: "off" });
    const s = settings(root);
    expect(s.hooks.PreToolUse).toEqual([
      {
        matcher: "Write|Edit|MultiEdit|NotebookEdit|Bash|Agent|Task",
        hooks: [
          {
            type: "http",
            url: "http://127.0.0.1:5123/hooks/pre-tool-use",
            headers: { "X-Baton-Hook-Secret": "$BATON_HOOK_SECRET" },
            allowedEnvVars: ["BATON_HOOK_SECRET"],
            onFailure: "block",
          },
        ],
      },
    ]);
    expect(s.hooks.SubagentStart[0].hooks[0].url).toBe("http://127.0.0.1:5123/hooks/subagent-start");
    expect(readManifest(root)!.manifest).toMatchObject({ hooks: "http", port: 5123 });
    // The installation's secret: in the local settings Claude Code reads its env from, which git ignores here.
    const local = () => JSON.parse(readFileSync(join(root, ".claude/settings.local.json"), "utf8"));
    const secret = local().env.BATON_HOOK_SECRET as string;
    expect(secret).toMatch(/^[0-9a-f]{64}$/);
    expect(
      execFileSync("git", ["check-ignore", ".claude/settings.local.json"], { cwd: root, encoding: "utf8" }),
    ).toBe(".claude/settings.local.json\n");
    expect((await runInit({ root })).upToDate).toBe(true);
    expect(local().env.BATON_HOOK_SECRET).toBe(secret);

    const back = await runInit({ root, hooks: "command" });
    // the four HTTP hooks, and the SessionStart and SessionEnd that kept their server; Stop and SubagentStop
    // stay as they were
    expect(back.settings.hooksRemoved).toHaveLength(6);
    expect(settings(root).hooks.Stop).toEqual([
      { hooks: [{ type: "command", command: `${TEST_BIN} hook stop`, timeout: 600 }] },
    ]);
    // Command hooks call no server: the secret goes, and the local settings file Baton made with it.
    expect(existsSync(join(root, ".claude/settings.local.json"))).toBe(false);
  });
});

describe("baton init: how the hooks reach Baton", () => {
  it("refuses HTTP hooks beside Claude Code's sandbox, naming why and what to use; without it they are the default", async () => {
    const root = tempRepo();
    await expect(runInit({ root, bin: TEST_BIN, hooks: "http" })).rejects.toThrow(
      /--hooks http cannot reach Baton from a session with Claude Code's sandbox on: .*sandbox proxy, which refuses 127\.0\.0\.1.*--hooks resident.*--host-sandbox off/,
    );
    expect(existsSync(join(root, ".claude"))).toBe(false);
    await runInit({ root, bin: TEST_BIN, hostSandbox: "off" });
    expect(readManifest(root)!.manifest).toMatchObject({ hooks: "http", port: repositoryPort(root) });
  });

  it("moves an earlier install's HTTP hooks over to the forwarder when the sandbox is on", async () => {
    const root = tempRepo();
    await runInit({ root, bin: TEST_BIN, hooks: "http", hostSandbox: "off" });
    await runInit({ root, hostSandbox: "on" });
    expect(readManifest(root)!.manifest.hooks).toBe("resident");
    expect(JSON.stringify(settings(root).hooks)).not.toContain('"http"');
  });
});

describe("baton init: the hook server's port", () => {
  it("gives each repository a port of its own, and moves on from one something else holds", async () => {
    const [a, b] = [tempRepo(), tempRepo()];
    await runInit({ root: a, bin: TEST_BIN, hooks: "http", hostSandbox: "off" });
    const portA = readManifest(a)!.manifest.port!;
    expect(portA).toBe(repositoryPort(a));
    expect(portA).toBeGreaterThanOrEqual(20_000);
    expect(portA).toBeLessThan(32_768);
    // Another repository's server (or any other program) on b's port: b's init takes the next one.
    const taken = repositoryPort(b);
    const squatter = createServer((_request, response) => response.end("not baton"));
    await new Promise<void>((resolve) => squatter.listen(taken, "127.0.0.1", resolve));
    try {
      await runInit({ root: b, bin: TEST_BIN, hooks: "http", hostSandbox: "off" });
    } finally {
      await new Promise((resolve) => squatter.close(resolve));
    }
    const portB = readManifest(b)!.manifest.port!;
    expect(portB).toBe(repositoryPort(b, 1));
    expect(portB).not.toBe(portA);
    // A plain re-run keeps the recorded port.
    expect((await runInit({ root: b })).upToDate).toBe(true);
  });
});

describe("baton init: Claude Code's own sandbox", () => {
  it("turns it on with Baton's commands the only exception, and uninstall takes back exactly that", async () => {
    const root = tempRepo();
    await runInit({ root, bin: TEST_BIN });
    const { sandbox } = settings(root);
    expect(sandbox).toMatchObject({
      enabled: true,
      failIfUnavailable: true,
      allowUnsandboxedCommands: false,
    });
    expect(sandbox.excludedCommands).toContain(`${TEST_BIN} gate-out:*`);
    expect(sandbox.excludedCommands.every((c: string) => c.startsWith(`${TEST_BIN} `))).toBe(true);
    expect(sandbox.filesystem.denyWrite).toEqual(
      expect.arrayContaining([
        "./specs/state.json",
        "./specs/TODO.md",
        "./specs/.baton",
        "./.git",
        "./.baton",
      ]),
    );
    expect(sandbox.filesystem.denyRead).toEqual([
      "~/.config/baton/keys",
      "~/.config/baton/holdout",
      "./.baton/holdout",
    ]);
    await runInit({ root, uninstall: true });
    expect(existsSync(join(root, ".claude/settings.json"))).toBe(false);
  });

  it("keeps a sandbox setting the user chose otherwise, says so, and leaves it on uninstall", async () => {
    const root = tempRepo();
    mkdirSync(join(root, ".claude"), { recursive: true });
    const mine = `{\n  "sandbox": { "enabled": false, "excludedCommands": ["docker"] }\n}\n`;
    writeFileSync(join(root, ".claude/settings.json"), mine);
    const result = await runInit({ root, bin: TEST_BIN });
    expect(settings(root).sandbox.enabled).toBe(false);
    expect(settings(root).sandbox.excludedCommands[0]).toBe("docker");
    expect(result.warnings.join("\n")).toContain("kept your sandbox.enabled is false, not true");
    await runInit({ root, uninstall: true });
    expect(readText(root, ".claude/settings.json")).toBe(mine);
  });

  it("--host-sandbox off leaves it as it is, and a re-run remembers", async () => {
    const root = tempRepo();
    await runInit({ root, bin: TEST_BIN, hostSandbox: "off" });
    expect(settings(root).sandbox).toBeUndefined();
    await runInit({ root });
    expect(settings(root).sandbox).toBeUndefined();
    expect(readManifest(root)?.manifest.hostSandbox).toBe("off");
  });
});
