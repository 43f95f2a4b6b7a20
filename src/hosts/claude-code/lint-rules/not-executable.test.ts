import { describe, expect, it } from "vitest";
import { modelFromTexts } from "../../../../test/support/lint-model.js";
import { notExecutable, runsDirectly } from "./not-executable.js";

const settings = (event: string, command: string) =>
  JSON.stringify({ hooks: { [event]: [{ hooks: [{ type: "command", command }] }] } }, null, 2);
const SCRIPT = "#!/bin/bash\necho '{}'\n";

describe("hooks/not-executable", () => {
  it("reports a script run directly without the executable bit", async () => {
    const model = modelFromTexts({
      ".claude/settings.json": settings("Stop", '"$CLAUDE_PROJECT_DIR"/.claude/hooks/post-command.sh'),
      ".claude/hooks/post-command.sh": SCRIPT,
    });
    const findings = await notExecutable.check(model);
    expect(findings).toEqual([
      expect.objectContaining({ file: ".claude/settings.json", severity: "warning" }),
    ]);
    expect(findings[0]?.message).toContain("is not executable");
  });

  it("reports a script executable on disk but committed as 100644", async () => {
    const model = modelFromTexts(
      {
        ".claude/settings.json": settings("Stop", ".claude/hooks/post-command.sh"),
        ".claude/hooks/post-command.sh": SCRIPT,
      },
      {
        executable: [".claude/hooks/post-command.sh"],
        tracked: [".claude/settings.json", ".claude/hooks/post-command.sh"],
        trackedExecutable: [],
      },
    );
    const findings = await notExecutable.check(model);
    expect(findings[0]?.message).toContain("git mode 100644");
  });

  it("accepts `bash x.sh`, executable scripts and untracked executable scripts", async () => {
    const model = modelFromTexts(
      {
        ".claude/settings.json": JSON.stringify({
          hooks: {
            Stop: [
              {
                hooks: [
                  { type: "command", command: "bash .claude/hooks/tts-notify.sh 2>/dev/null || echo '{}'" },
                ],
              },
            ],
            SessionStart: [{ hooks: [{ type: "command", command: ".claude/hooks/log-session.sh" }] }],
            PostToolUse: [
              {
                hooks: [
                  {
                    type: "command",
                    command:
                      "bash -c 'if [[ \"$FILE\" == *state.json* ]]; then bash .claude/hooks/validate-state-sync.sh; fi'",
                  },
                ],
              },
            ],
          },
        }),
        ".claude/hooks/tts-notify.sh": SCRIPT,
        ".claude/hooks/log-session.sh": SCRIPT,
        ".claude/hooks/validate-state-sync.sh": SCRIPT,
      },
      { executable: [".claude/hooks/log-session.sh"] },
    );
    expect(await notExecutable.check(model)).toEqual([]);
  });

  it("tells direct runs from interpreter runs", () => {
    expect(runsDirectly("bash .claude/hooks/x.sh", ".claude/hooks/x.sh")).toBe(false);
    expect(runsDirectly("python3 -u .claude/hooks/x.py", ".claude/hooks/x.py")).toBe(false);
    expect(runsDirectly('"$CLAUDE_PROJECT_DIR"/.claude/hooks/x.sh', ".claude/hooks/x.sh")).toBe(true);
    expect(runsDirectly("cd . && .claude/hooks/x.sh --fast", ".claude/hooks/x.sh")).toBe(true);
    expect(runsDirectly("bash .claude/hooks/x.sh.bak", ".claude/hooks/x.sh")).toBe(false);
  });
});
