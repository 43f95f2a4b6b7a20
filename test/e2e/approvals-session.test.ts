import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { say, text, toolResults, toolUse } from "../../src/testing/fake-messages-api.js";
import { BIN, closeSessions, located, plannedRepo, session } from "./claude-script.js";
import { git, readJson } from "./helpers.js";

/**
 * Approvals inside a live Claude Code session (the real binary, offline against the scripted model): the
 * person's own `/approve 1` records their answer by its `!` line, with no tool call of the model's; the model
 * running `baton approve` itself is refused by Baton's hook, in the default permission mode and in
 * bypassPermissions alike.
 */
afterEach(closeSessions);

function approvalsRepo(): string {
  const dir = plannedRepo();
  writeFileSync(join(dir, "baton.config.yaml"), "approvals:\n  implement: plan\n");
  git(dir, ["add", "-A"]);
  git(dir, ["commit", "-qm", "approvals"]);
  return dir;
}

const approval = (dir: string) => readJson(dir, "state.json").active_projects[0].plan_approval;

describe.skipIf(located.path === null)("approvals in a live session", () => {
  test("the person's /approve 1 is recorded; the model cannot approve by itself", {
    timeout: 180_000,
  }, async () => {
    const dir = approvalsRepo();
    const relayed = await session(
      dir,
      { conversations: [], fallback: { content: [text("Relayed Baton's output.")] } },
      { mode: "default", prompt: "/approve 1", ownKey: true },
    );
    expect(relayed.api.problems(), relayed.run.stdout + relayed.run.stderr).toEqual([]);
    expect(approval(dir), relayed.run.stdout + relayed.run.stderr).toMatchObject({ verdict: "approved" });
    expect(git(dir, ["log", "-1", "--format=%s"]).trim()).toBe("task 1: approve plan");

    for (const mode of ["default", "bypassPermissions"] as const) {
      const fresh = approvalsRepo();
      let refused = "";
      const model = await session(
        fresh,
        {
          conversations: [
            {
              match: { prompt: "Approve the plan of task 1" },
              turns: [
                { content: [toolUse("Bash", { command: `${BIN} approve 1`, description: "Approve it" })] },
                {
                  reply: ({ request }) => {
                    refused = JSON.stringify(toolResults(request));
                    return say(text("I may not approve it."));
                  },
                },
              ],
            },
          ],
        },
        { mode, prompt: "Approve the plan of task 1" },
      );
      expect(model.api.problems()).toEqual([]);
      expect(refused, mode).toContain("only the person answers for a plan");
      expect(approval(fresh), mode).toBeUndefined();
    }
  });
});
