import { describe, expect, it } from "vitest";
import { modelFromTexts } from "../../../../test/support/lint-model.js";
import { heredocNoExpand } from "./heredoc-no-expand.js";

const run = async (files: Record<string, string>) => heredocNoExpand.check(modelFromTexts(files));

describe("git/heredoc-no-expand", () => {
  it("reports variables in a quoted commit template and in a quoted marker heredoc", async () => {
    const findings = await run({
      ".claude/skills/skill-implementer/SKILL.md": [
        "---",
        "name: skill-implementer",
        "description: Implement",
        "---",
        "```bash",
        "git commit -m \"$(cat <<'EOF'",
        `task \${task_number}: complete implementation`,
        "",
        "Session: $session_id",
        "EOF",
        ')"',
        "```",
      ].join("\n"),
      ".claude/context/core/patterns/postflight-control.md": [
        "```bash",
        `cat > "specs/\${task_number}_\${project_name}/.postflight-pending" << "EOF"`,
        "{",
        '  "session_id": "$session_id",',
        '  "created": "$(date -u +%Y-%m-%dT%H:%M:%SZ)"',
        "}",
        "EOF",
        "```",
      ].join("\n"),
      ".claude/scripts/commit.sh": `#!/bin/bash\ngit commit -F - <<\\MSG\nSession: \${session_id}\nMSG\n`,
    });
    expect(findings.map((f) => `${f.file}:${f.line}`)).toEqual([
      ".claude/context/core/patterns/postflight-control.md:4",
      ".claude/scripts/commit.sh:3",
      ".claude/skills/skill-implementer/SKILL.md:7",
    ]);
    expect(findings[2]?.message).toContain(`\${task_number}, $session_id`);
  });

  it("accepts placeholders, unquoted heredocs, here-strings and heredocs fed to interpreters or scripts", async () => {
    const findings = await run({
      ".claude/commands/research.md": [
        "```bash",
        "git commit -m \"$(cat <<'EOF'",
        "task {N}: complete research",
        "",
        "Session: {session_id}",
        "EOF",
        ')"',
        `cat > "specs/\${task_number}_\${slug}/.postflight-pending" << EOF`,
        `{"session_id": "\${session_id}"}`,
        "EOF",
        "cat > /tmp/todo_nonmeta_$$.jq << 'EOF'",
        ".active_projects[] | select(.language != $lang)",
        "EOF",
        "jq -n --arg sid \"$sid\" -f /dev/stdin <<'EOF'",
        "{session: $sid}",
        "EOF",
        "cat > .claude/hooks/guard.sh <<'EOF'",
        'input=$(cat); echo "$input"',
        "EOF",
        'done <<< "$UNIQUE_TAB_IDS"',
        "```",
      ].join("\n"),
    });
    expect(findings).toEqual([]);
  });
});
