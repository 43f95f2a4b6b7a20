import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { GUARDED_SETTINGS } from "./baton-paths.js";
import { guardedPaths, hostHookScripts } from "./host-hook-scripts.js";

let root: string;
afterEach(() => rmSync(root, { recursive: true, force: true }));

function write(path: string, text: string): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
}

const hooks = (...commands: string[]) =>
  JSON.stringify({
    hooks: {
      PreToolUse: [{ matcher: "*", hooks: commands.map((command) => ({ type: "command", command })) }],
    },
  });

describe("the scripts the hosts' hooks run outside any sandbox", () => {
  it("are read from every host's hook settings; one in a hidden folder stands for its folder", () => {
    root = mkdtempSync(join(tmpdir(), "baton-hook-scripts-"));
    write(
      ".claude/settings.json",
      hooks("bash .claude/hooks/guard.sh", '"$CLAUDE_PROJECT_DIR"/scripts/check.py'),
    );
    write(".claude/settings.local.json", hooks("~/bin/mine.sh", "node /usr/lib/outside.js"));
    write(".codex/hooks.json", hooks(".codex/hooks/run.sh --fast"));
    write("opencode.json", JSON.stringify({ permission: { edit: "ask" } }));
    expect(hostHookScripts(root)).toEqual([".claude/hooks", ".codex/hooks", "scripts/check.py"]);
    expect(guardedPaths(root)).toEqual([
      ...GUARDED_SETTINGS,
      ".claude/hooks",
      ".codex/hooks",
      "scripts/check.py",
    ]);
  });

  it("are none where the settings are missing, unreadable or name no script", () => {
    root = mkdtempSync(join(tmpdir(), "baton-hook-scripts-"));
    write(".claude/settings.json", "{ not json");
    write(".codex/hooks.json", JSON.stringify({ hooks: { Stop: "not a list" } }));
    expect(hostHookScripts(root)).toEqual([]);
  });
});
