import { describe, expect, it } from "vitest";
import { hookScripts } from "./hook-scripts.js";

const root = "/repo";

describe("hookScripts", () => {
  it.each([
    ["bash .claude/hooks/x.sh", [".claude/hooks/x.sh"]],
    ['"$CLAUDE_PROJECT_DIR"/.claude/hooks/x.sh', [".claude/hooks/x.sh"]],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell variable, written as the hook or doc would
    ["${CLAUDE_PROJECT_DIR}/.claude/hooks/x.sh --flag", [".claude/hooks/x.sh"]],
    ["node hooks/pre.js", ["hooks/pre.js"]],
    [".claude/hooks/no-extension", [".claude/hooks/no-extension"]],
    ["./scripts/../.claude/hooks/x.sh", [".claude/hooks/x.sh"]],
    ["/repo/.claude/hooks/abs.sh", [".claude/hooks/abs.sh"]],
    [
      `bash -c 'if [[ "$F" == *"state.json"* ]]; then bash .claude/hooks/v.sh 2>/dev/null || echo "{}"; fi'`,
      [".claude/hooks/v.sh"],
    ],
    ["echo '{}' > /dev/null 2>&1", []],
    ["baton hook stop", []],
  ])("%s", (command, scripts) => {
    expect(hookScripts(command, root).scripts).toEqual(scripts);
  });

  it("keeps paths outside the repository as written, apart from the scripts", () => {
    expect(hookScripts("bash ~/.config/nvim/ready.sh", root)).toEqual({
      scripts: [],
      external: ["~/.config/nvim/ready.sh"],
    });
    expect(hookScripts("bash $HOME/bin/x.sh && /opt/hooks/y.sh", root)).toEqual({
      scripts: [],
      external: ["~/bin/x.sh", "/opt/hooks/y.sh"],
    });
  });
});
