import { describe, expect, it } from "vitest";
import { modelFromTexts } from "../../../../test/support/lint-model.js";
import { directStateWrite } from "./direct-state-write.js";

const run = async (files: Record<string, string>) => directStateWrite.check(modelFromTexts(files));

const SKILL = `---
name: skill-researcher
description: Research a task
---
### Stage 2: Preflight Status Update

\`\`\`bash
jq --arg ts "$(date -u +%Y-%m-%dT%H:%M:%SZ)" \\
   --arg status "researching" \\
  '(.active_projects[] | select(.project_number == '$task_number')) |= . + {
    status: $status,
    last_updated: $ts
  }' specs/state.json > /tmp/state.json && mv /tmp/state.json specs/state.json
\`\`\`
`;

describe("delegation/direct-state-write", () => {
  it("reports the jq > tmp && mv pipeline of the original skills on the mv", async () => {
    const findings = await run({ ".claude/skills/skill-researcher/SKILL.md": SKILL });
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({ line: 13, message: expect.stringContaining("specs/state.json") });
    expect(findings[0]?.message).toContain("`mv` onto it");
  });

  it("follows `\\`-continued commands and state-path variables", async () => {
    const findings = await run({
      ".claude/commands/task.md": [
        "```bash",
        "sed -i 's/^next_project_number: [0-9]*/next_project_number: 12/' \\",
        "  specs/TODO.md",
        "```",
      ].join("\n"),
      ".claude/scripts/postflight-plan.sh": [
        "#!/bin/bash",
        'state_file="specs/state.json"',
        'jq \'.x = 1\' "$state_file" > /tmp/state.json && mv /tmp/state.json "$state_file"',
        "echo '- [x] done' >> specs/TODO.md",
        'python3 -c \'import json; json.dump({}, open("specs/state.json", "w"))\'',
      ].join("\n"),
    });
    expect(findings.map((f) => `${f.file}:${f.line}`)).toEqual([
      ".claude/commands/task.md:2",
      ".claude/scripts/postflight-plan.sh:3",
      ".claude/scripts/postflight-plan.sh:4",
      ".claude/scripts/postflight-plan.sh:5",
    ]);
  });

  it("leaves reads, temp files, other JSON files, comments and prose alone", async () => {
    const findings = await run({
      ".claude/commands/research.md": [
        "Never write state.json with `jq ... > specs/state.json`; Baton does.",
        "```bash",
        "task_data=$(jq -r --arg num \"$task_number\" '.active_projects[]' specs/state.json)",
        "jq -r '.status' specs/state.json > /tmp/status.txt 2>/dev/null",
        "cp specs/state.json specs/state.json.bak",
        "# jq '.x' specs/state.json > /tmp/s && mv /tmp/s specs/state.json",
        "echo '{}' > specs/reviews/state.json",
        'sed -i "s/\\[PLANNED\\]/[IMPLEMENTING]/" "$plan_file"',
        "grep -c '^### ' specs/TODO.md",
        "```",
      ].join("\n"),
    });
    expect(findings).toEqual([]);
  });
});
