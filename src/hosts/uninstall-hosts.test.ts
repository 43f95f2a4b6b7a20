import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readText, TEST_BIN, tempRepo, tree } from "../init/test-repo.js";
import { runInit } from "./index.js";

const USER_SETTINGS = `{
  "permissions": {"allow": ["Bash(npm test:*)"]},
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "./guard.sh"}]}
    ]
  }
}
`;

describe("baton init --uninstall", () => {
  it("removes everything it added from a fresh repository, folders included", async () => {
    const root = tempRepo();
    writeFileSync(join(root, "README.md"), "hello\n");
    await runInit({ root, bin: TEST_BIN });
    const result = await runInit({ root, uninstall: true });
    expect(result.written).toBe(true);
    expect(result.kept).toEqual([]);
    expect(tree(root)).toEqual({ "README.md": "hello\n" });
    expect(existsSync(join(root, ".claude"))).toBe(false);
    expect(existsSync(join(root, ".baton"))).toBe(false);
  });

  it("keeps the user's hooks, permissions and bytes of settings.json", async () => {
    const root = tempRepo();
    mkdirSync(join(root, ".claude"));
    writeFileSync(join(root, ".claude/settings.json"), USER_SETTINGS);
    await runInit({ root, bin: TEST_BIN });
    // The user adds a hook of their own after init; it must survive the uninstall.
    const installed = JSON.parse(readText(root, ".claude/settings.json"));
    installed.hooks.Stop.push({ hooks: [{ type: "command", command: "./after.sh" }] });
    writeFileSync(join(root, ".claude/settings.json"), `${JSON.stringify(installed, null, 2)}\n`);

    const result = await runInit({ root, uninstall: true });
    // SessionStart (which starts the hook server), the six hooks it serves, and SessionEnd.
    expect(result.settings.hooksRemoved).toHaveLength(8);
    const after = JSON.parse(readText(root, ".claude/settings.json"));
    expect(after).toEqual({
      permissions: { allow: ["Bash(npm test:*)"] },
      hooks: {
        PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "./guard.sh" }] }],
        Stop: [{ hooks: [{ type: "command", command: "./after.sh" }] }],
      },
    });
  });

  it("restores a hand-formatted settings.json byte for byte", async () => {
    const root = tempRepo();
    mkdirSync(join(root, ".claude"));
    writeFileSync(join(root, ".claude/settings.json"), USER_SETTINGS);
    await runInit({ root, bin: TEST_BIN });
    await runInit({ root, uninstall: true });
    expect(readText(root, ".claude/settings.json")).toBe(USER_SETTINGS);
  });

  it("leaves an identical entry the user had before init: it was never Baton's", async () => {
    const root = tempRepo();
    mkdirSync(join(root, ".claude"));
    const stop = { hooks: [{ type: "command", command: `${TEST_BIN} hook stop`, timeout: 600 }] };
    const own = { hooks: { Stop: [stop] }, permissions: { allow: [`Bash(${TEST_BIN} task:*)`] } };
    writeFileSync(join(root, ".claude/settings.json"), `${JSON.stringify(own, null, 2)}\n`);
    const installed = await runInit({ root, bin: TEST_BIN, hooks: "command" });
    expect(installed.settings.hooksAdded.map((h) => h.event)).not.toContain("Stop");
    expect(installed.settings.permissionsAdded).not.toContain(`Bash(${TEST_BIN} task:*)`);
    await runInit({ root, uninstall: true });
    expect(JSON.parse(readText(root, ".claude/settings.json"))).toEqual(own);
  });

  it("keeps a Baton file the user changed, and reports it", async () => {
    const root = tempRepo();
    await runInit({ root, bin: TEST_BIN });
    writeFileSync(join(root, ".claude/commands/plan.md"), "my plan command\n");
    const result = await runInit({ root, uninstall: true });
    expect(result.kept).toEqual([
      { path: ".claude/commands/plan.md", reason: "changed since baton init wrote it; left in place" },
    ]);
    expect(readText(root, ".claude/commands/plan.md")).toBe("my plan command\n");
    expect(existsSync(join(root, ".claude/commands/research.md"))).toBe(false);
    expect(existsSync(join(root, ".claude/settings.json"))).toBe(false);
    expect(existsSync(join(root, ".baton/init.json"))).toBe(false);
  });

  it("keeps settings.json Baton created when the user has added to it", async () => {
    const root = tempRepo();
    await runInit({ root, bin: TEST_BIN });
    const s = JSON.parse(readText(root, ".claude/settings.json"));
    s.model = "sonnet";
    writeFileSync(join(root, ".claude/settings.json"), `${JSON.stringify(s, null, 2)}\n`);
    await runInit({ root, uninstall: true });
    expect(readText(root, ".claude/settings.json")).toBe('{\n  "model": "sonnet"\n}\n');
  });

  it("--dry-run shows the removals and writes nothing", async () => {
    const root = tempRepo();
    await runInit({ root, bin: TEST_BIN });
    const before = tree(root);
    const result = await runInit({ root, uninstall: true, dryRun: true });
    expect(result.written).toBe(false);
    expect(tree(root)).toEqual(before);
    const task = result.changes.find((c) => c.path === ".claude/commands/task.md")!;
    expect(task.action).toBe("delete");
    expect(task.diff).toMatch(
      /^--- a\/\.claude\/commands\/task\.md\n\+\+\+ \/dev\/null\n@@ -1,\d+ \+0,0 @@\n-/,
    );
  });

  it("says so when Baton is not installed", async () => {
    const root = tempRepo();
    const result = await runInit({ root, uninstall: true });
    expect(result.notInstalled).toBe(true);
    expect(result.written).toBe(false);
  });
});
