import { describe, expect, it } from "vitest";
import { modelFromTexts } from "../../../../test/support/lint-model.js";
import { swallowedErrors } from "./swallowed-errors.js";

describe("hooks/swallowed-errors", () => {
  it("reports settings commands and hook scripts that turn failures into success", async () => {
    const model = modelFromTexts({
      ".claude/settings.json": JSON.stringify(
        {
          hooks: {
            SubagentStop: [
              {
                matcher: "*",
                hooks: [
                  {
                    type: "command",
                    command: "bash .claude/hooks/subagent-postflight.sh 2>/dev/null || echo '{}'",
                  },
                ],
              },
            ],
            PostToolUse: [
              {
                matcher: "Write",
                hooks: [
                  {
                    type: "command",
                    command:
                      'bash -c \'if [[ "$FILE" == *"specs/state.json"* ]]; then bash .claude/hooks/validate.sh 2>/dev/null || echo "{}"; else echo "{}"; fi\'',
                  },
                ],
              },
            ],
            Stop: [{ hooks: [{ type: "command", command: ".claude/hooks/notify.sh || true" }] }],
          },
        },
        null,
        2,
      ),
      ".claude/hooks/subagent-postflight.sh": "#!/bin/bash\necho '{}'\n",
      ".claude/hooks/validate.sh": "#!/bin/bash\npython3 .claude/hooks/check.py 2>/dev/null || echo '{}'\n",
      ".claude/hooks/notify.sh": "#!/bin/bash\ntrap 'echo \"{}\"; exit 0' ERR\nnotify-send done\n",
    });
    const findings = await swallowedErrors.check(model);
    expect(findings.map((f) => `${f.file}:${f.line}`)).toEqual([
      ".claude/settings.json:9",
      ".claude/settings.json:20",
      ".claude/settings.json:30",
      ".claude/hooks/notify.sh:2",
      ".claude/hooks/validate.sh:2",
    ]);
    expect(findings[0]?.message).toContain("stderr is discarded");
  });

  it("accepts plain commands, value fallbacks and explicit empty output", async () => {
    const model = modelFromTexts({
      ".claude/settings.json": JSON.stringify({
        hooks: {
          Stop: [{ hooks: [{ type: "command", command: "bash .claude/hooks/tts-notify.sh" }] }],
          PreToolUse: [
            {
              hooks: [
                {
                  type: "command",
                  command:
                    'bash -c \'FILE=$(echo "$CLAUDE_TOOL_INPUT" | jq -r ".file_path // empty" 2>/dev/null); echo "{}"\'',
                },
              ],
            },
          ],
        },
      }),
      ".claude/hooks/tts-notify.sh": [
        "#!/bin/bash",
        "# Helper: return success JSON for Stop hook (never `|| echo '{}'`)",
        'LAST_TIME=$(cat "$LAST_NOTIFY_FILE" 2>/dev/null || echo "0")',
        "if ! command -v piper &>/dev/null; then echo '{}'; exit 0; fi",
        "(timeout 10s piper --model x &) || true",
      ].join("\n"),
    });
    expect(await swallowedErrors.check(model)).toEqual([]);
  });
});
