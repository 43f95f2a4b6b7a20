import { describe, expect, it } from "vitest";
import { modelFromTexts } from "../../../../test/support/lint-model.js";
import { missingScript } from "./missing-script.js";

const settings = (commands: string[]) =>
  JSON.stringify(
    {
      hooks: {
        SessionStart: [{ matcher: "*", hooks: commands.map((command) => ({ type: "command", command })) }],
      },
    },
    null,
    2,
  );

describe("hooks/missing-script", () => {
  it("reports a hook script that is not in the repository", async () => {
    const model = modelFromTexts({
      ".claude/settings.json": settings([
        "bash .claude/hooks/log-session.sh 2>/dev/null || echo '{}'",
        '"$CLAUDE_PROJECT_DIR"/.claude/hooks/wezterm-clear-task-number.sh',
      ]),
      ".claude/hooks/log-session.sh": "#!/bin/bash\necho '{}'\n",
    });
    const findings = await missingScript.check(model);
    expect(findings).toEqual([
      expect.objectContaining({ file: ".claude/settings.json", severity: "error", line: 13 }),
    ]);
    expect(findings[0]?.message).toContain(".claude/hooks/wezterm-clear-task-number.sh");
  });

  it("accepts existing scripts, scripts outside the tree that exist on disk, and home-folder scripts", async () => {
    const model = modelFromTexts(
      {
        ".claude/settings.json": settings([
          "bash .claude/hooks/log-session.sh",
          "node scripts/hooks/stop.mjs",
          "bash ~/.config/nvim/scripts/claude-ready-signal.sh 2>/dev/null || echo '{}'",
          "node /opt/baton/bin/baton.js hook stop",
        ]),
        ".claude/hooks/log-session.sh": "#!/bin/bash\necho '{}'\n",
      },
      { existing: ["scripts/hooks/stop.mjs"] },
    );
    expect(await missingScript.check(model)).toEqual([]);
  });
});
