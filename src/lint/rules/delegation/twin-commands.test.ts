import { describe, expect, it } from "vitest";
import { modelFromTexts } from "../../../../test/support/lint-model.js";
import { twinCommands } from "./twin-commands.js";

describe("delegation/twin-commands", () => {
  it("reports commands/x.sh beside commands/x.md", async () => {
    const model = modelFromTexts({
      ".claude/commands/research.md": "---\ndescription: Research a task\n---\nRun the research skill.\n",
      ".claude/commands/research.sh": "#!/bin/bash\njq -r '.active_projects[]' specs/state.json\n",
      ".claude/commands/plan.md": "---\ndescription: Plan a task\n---\n",
    });
    const findings = await twinCommands.check(model);
    expect(findings).toEqual([
      expect.objectContaining({ file: ".claude/commands/research.sh", line: 1, severity: "warning" }),
    ]);
    expect(findings[0]?.message).toContain(".claude/commands/research.md");
  });

  it("accepts a lone .sh command, nested namesakes and a script of the same name elsewhere", async () => {
    const model = modelFromTexts({
      ".claude/commands/sync.sh": "#!/bin/bash\necho sync\n",
      ".claude/commands/plan.md": "---\ndescription: Plan\n---\n",
      ".claude/commands/team/plan.sh": "#!/bin/bash\n",
      ".claude/scripts/plan.sh": "#!/bin/bash\n",
    });
    expect(await twinCommands.check(model)).toEqual([]);
  });
});
