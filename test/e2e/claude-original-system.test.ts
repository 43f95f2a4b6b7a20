import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import {
  closeSessions,
  expectResearched,
  FOLDER,
  honestAgent,
  honestMain,
  initialisedRepo,
  located,
  session,
} from "./claude-script.js";
import { git, ok, readJson } from "./helpers.js";

afterEach(closeSessions);

/**
 * The original system's SubagentStop hook, as its repositories wire it (`subagent-postflight.sh`): it holds a
 * sub-agent while any task folder has a `.postflight-pending` marker, and deletes the marker after three holds.
 */
const THEIR_POSTFLIGHT_HOOK = `#!/bin/bash
marker=$(find specs -maxdepth 3 -name ".postflight-pending" -type f 2>/dev/null | head -1)
if [ -n "$marker" ]; then
  guard="$(dirname "$marker")/.postflight-loop-guard"
  count=$(cat "$guard" 2>/dev/null || echo 0)
  if [ "$count" -ge 3 ]; then rm -f "$guard" "$marker"; echo '{}'; exit 0; fi
  echo $((count + 1)) > "$guard"
  echo '{"decision": "block", "reason": "Postflight pending: complete the postflight before stopping."}'
  exit 0
fi
echo '{}'
`;

function wireTheirHook(dir: string): void {
  mkdirSync(join(dir, ".claude/hooks"), { recursive: true });
  writeFileSync(join(dir, ".claude/hooks/subagent-postflight.sh"), THEIR_POSTFLIGHT_HOOK);
  chmodSync(join(dir, ".claude/hooks/subagent-postflight.sh"), 0o755);
  const settings = JSON.parse(readFileSync(join(dir, ".claude/settings.json"), "utf8"));
  settings.hooks.SubagentStop.push({
    hooks: [{ type: "command", command: "bash .claude/hooks/subagent-postflight.sh" }],
  });
  writeFileSync(join(dir, ".claude/settings.json"), `${JSON.stringify(settings, null, 2)}\n`);
  git(dir, ["add", "-A"]);
  git(dir, ["commit", "-qm", "their postflight hook"]);
}

describe.skipIf(located.path === null)("beside the original system's own hooks", () => {
  test("their SubagentStop script neither holds Baton's agent nor deletes Baton's marker", {
    timeout: 120_000,
  }, async () => {
    const dir = initialisedRepo();
    wireTheirHook(dir);
    const { api, run } = await session(
      dir,
      { conversations: [honestMain("research"), honestAgent(dir, "research")] },
      { mode: "default", ownKey: true },
    );
    // Their hook held nothing: the agent's four turns were enough, and no stop was sent back by it.
    expect(api.problems(), run.stdout + run.stderr).toEqual([]);
    const subagent = api.messageRequests().filter((r) => r.conversation === "research");
    expect(JSON.stringify(subagent.map((r) => r.body?.messages.at(-1)))).not.toContain("Postflight pending");
    expectResearched(dir);
    expect(existsSync(join(dir, FOLDER, ".postflight-loop-guard"))).toBe(false);
    expect(readJson(dir, "state.json").active_projects[0].status).toBe("researched");
    expect(ok(dir, ["verify"]).stdout).toContain("0 phantom(s)");
  });
});
