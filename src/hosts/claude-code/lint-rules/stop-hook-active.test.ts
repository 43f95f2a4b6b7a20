import { describe, expect, it } from "vitest";
import { modelFromTexts } from "../../../../test/support/lint-model.js";
import { stopHookActive } from "./stop-hook-active.js";

const settings = (event: string, command: string) =>
  JSON.stringify({ hooks: { [event]: [{ matcher: "*", hooks: [{ type: "command", command }] }] } }, null, 2);

// The original's SubagentStop hook, shortened: it greps its own marker file, never the hook input.
const ORIGINAL = `#!/bin/bash
# Returns:
#   {"decision": "block", "reason": "..."} - Prevents stop
MARKER_FILE=$(find specs -maxdepth 3 -name ".postflight-pending" -type f 2>/dev/null | head -1)
if [ -n "$MARKER_FILE" ]; then
    if grep -q '"stop_hook_active": true' "$MARKER_FILE" 2>/dev/null; then
        echo '{}'
        exit 0
    fi
    echo "{\\"decision\\": \\"block\\", \\"reason\\": \\"Postflight operations pending\\"}"
    exit 0
fi
echo '{}'
`;

const FIXED = `#!/bin/bash
input=$(cat)
if [ "$(jq -r '.stop_hook_active' <<<"$input")" = true ]; then echo '{}'; exit 0; fi
echo '{"decision": "block", "reason": "Run baton gate-out first"}'
`;

describe("hooks/stop-hook-active", () => {
  it("reports a blocking SubagentStop hook that reads stop_hook_active from a file", async () => {
    const model = modelFromTexts({
      ".claude/settings.json": settings(
        "SubagentStop",
        "bash .claude/hooks/subagent-postflight.sh 2>/dev/null || echo '{}'",
      ),
      ".claude/hooks/subagent-postflight.sh": ORIGINAL,
    });
    const findings = await stopHookActive.check(model);
    expect(findings).toEqual([
      expect.objectContaining({ file: ".claude/hooks/subagent-postflight.sh", line: 10, severity: "error" }),
    ]);
    expect(findings[0]?.message).toContain("in a file, never in the hook's stdin");
  });

  it("reports a Stop hook that exits 2 without reading its input, and an inline blocking command", async () => {
    const model = modelFromTexts({
      ".claude/settings.json": JSON.stringify({
        hooks: {
          Stop: [
            { hooks: [{ type: "command", command: ".claude/hooks/require-tests.sh" }] },
            { hooks: [{ type: "command", command: "test -f .done || { echo 'not done' >&2; exit 2; }" }] },
          ],
        },
      }),
      ".claude/hooks/require-tests.sh":
        "#!/bin/bash\nif ! npm test >/dev/null; then echo 'tests fail' >&2; exit 2; fi\n",
    });
    const findings = await stopHookActive.check(model);
    expect(findings.map((f) => f.file)).toEqual([".claude/hooks/require-tests.sh", ".claude/settings.json"]);
    expect(findings[0]?.message).toContain("never reads its input");
  });

  it("accepts hooks that read stop_hook_active from stdin and hooks that never block", async () => {
    const model = modelFromTexts({
      ".claude/settings.json": JSON.stringify({
        hooks: {
          SubagentStop: [{ hooks: [{ type: "command", command: "bash .claude/hooks/postflight.sh" }] }],
          Stop: [
            {
              hooks: [
                { type: "command", command: "bash .claude/hooks/post-command.sh 2>/dev/null || echo '{}'" },
              ],
            },
            { hooks: [{ type: "command", command: "node /opt/baton/bin/baton.js hook stop" }] },
          ],
          PreToolUse: [{ hooks: [{ type: "command", command: "bash .claude/hooks/guard.sh" }] }],
        },
      }),
      ".claude/hooks/postflight.sh": FIXED,
      ".claude/hooks/post-command.sh":
        "#!/bin/bash\necho \"[$(date -Iseconds)] Response completed\" >> .claude/logs/sessions.log\necho '{}'\n",
      ".claude/hooks/guard.sh": "#!/bin/bash\necho 'no' >&2\nexit 2\n",
    });
    expect(await stopHookActive.check(model)).toEqual([]);
  });
});
