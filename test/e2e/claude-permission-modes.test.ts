import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import {
  type MessagesRequest,
  promptOf,
  say,
  text,
  toolResults,
  toolUse,
} from "../../src/testing/fake-messages-api.js";
import {
  closeSessions,
  type DelegatedOperation,
  delegate,
  FOLDER,
  honestAgent,
  honestMain,
  initialisedRepo,
  located,
  mainThread,
  type PermissionMode,
  session,
} from "./claude-script.js";
import { git, ok, readJson } from "./helpers.js";

afterEach(closeSessions);

/**
 * The modes in which Claude Code lets a delegated agent write without a person answering each write. The
 * default mode, the one people use most, runs the whole lifecycle; the others run /research, which takes the
 * same hooks, sandbox and gates.
 */
const WRITING_MODES: [PermissionMode, readonly DelegatedOperation[]][] = [
  ["default", ["research", "plan", "implement"]],
  ["acceptEdits", ["research"]],
  ["bypassPermissions", ["research"]],
];

const STATUS: Record<DelegatedOperation, string> = {
  research: "researched",
  plan: "planned",
  implement: "completed",
};

/**
 * The honest path after a plain `baton init` (Claude Code's sandbox on, Baton's default hooks), in the
 * permission modes people work in: /research, /plan and /implement each delegate, the agent's Bash runs in
 * the sandbox, its writes go through the file tools, and the printed gate-out records and commits.
 * In the default, acceptEdits and plan modes Claude Code sends HTTP hooks through its sandbox proxy, which
 * refuses 127.0.0.1: every tool call was blocked there while init installed HTTP hooks beside the sandbox.
 */
describe.skipIf(located.path === null)("an honest session passes in every permission mode", () => {
  test.each(WRITING_MODES)("%s: %j", { timeout: 240_000 }, async (mode, operations) => {
    const dir = initialisedRepo();
    for (const operation of operations) {
      const { api, run, hookLog } = await session(
        dir,
        { conversations: [honestMain(operation), honestAgent(dir, operation)] },
        { mode, prompt: `/${operation} 1`, ownKey: true },
      );
      const told = api.messageRequests().flatMap((r) => (r.body ? toolResults(r.body) : []));
      expect(api.problems(), `${operation}: ${JSON.stringify(told).slice(-1500)}${run.stderr}`).toEqual([]);
      expect(readJson(dir, "state.json").active_projects[0].status, operation).toBe(STATUS[operation]);
      expect(git(dir, ["log", "-1", "--format=%s"]).trim()).toMatch(/^task 1: /);
      expect(existsSync(join(dir, "specs/.baton/checkpoints/1.json"))).toBe(false);
      // The hooks saw the sub-agent's tool calls, so provenance was recorded by Baton, not assumed.
      expect(hookLog).toContainEqual(expect.objectContaining({ event: "pre-tool-use", tool: "Agent" }));
      expect(hookLog).toContainEqual(
        expect.objectContaining({ event: "post-tool-use", agent_type: expect.any(String) }),
      );
    }
    if (operations.includes("implement"))
      expect(readFileSync(join(dir, "src/lexer.ts"), "utf8")).toContain("keepsLastToken");
    expect(git(dir, ["status", "--porcelain"])).toBe("");
    expect(ok(dir, ["verify"]).stdout).toContain("0 phantom(s)");
    // With Claude Code's sandbox on, no process of the model's could read the key: nothing is listed apart.
    const report = JSON.parse(ok(dir, ["verify", "--json"]).stdout);
    expect(report.verified).toHaveLength(operations.length);
    expect(report.keyReachable).toEqual([]);
    expect(existsSync(join(dir, FOLDER, ".baton-postflight-pending"))).toBe(false);
  });

  /**
   * Plan mode is Claude Code's read-only mode: it holds every write of a sub-agent (file tools and Bash alike)
   * for the person, and no hook can lift that, so without a person to answer (`-p`) the agent writes nothing.
   * What Baton owes there: its hooks reach it (every tool call was blocked before), and nothing is recorded
   * that the agent did not write.
   */
  test("plan: the hooks reach Baton, and a research whose writes plan mode held records nothing", {
    timeout: 120_000,
  }, async () => {
    const dir = initialisedRepo();
    const { hookLog } = await session(
      dir,
      { conversations: [honestMain("research"), honestAgent(dir, "research")] },
      { mode: "plan", prompt: "/research 1" },
    );
    expect(hookLog).toContainEqual(expect.objectContaining({ event: "pre-tool-use", tool: "Agent" }));
    expect(hookLog).toContainEqual(expect.objectContaining({ event: "pre-tool-use", tool: "Write" }));
    expect(readJson(dir, "state.json").active_projects[0].status).toBe("researching");
    expect(git(dir, ["log", "-1", "--format=%s"]).trim()).toBe("baton init");
  });

  /**
   * The model closes the checkpoint with a command of its own making (`--session "$(…)"`): that runs
   * inside Claude Code's sandbox, where the store is read-only, and says so; when the model then stops, the
   * Stop hook runs the same GATE OUT itself, outside the sandbox. What is recorded does not depend on the form.
   */
  test("default: a gate-out typed in another form is closed by Baton when the model stops", {
    timeout: 120_000,
  }, async () => {
    const dir = initialisedRepo();
    let told = "";
    const ownForm = ({ request }: { request: MessagesRequest }) => {
      const printed = /^\s*(\S.* gate-out research 1 --session sess_\S+)\s*$/m.exec(promptOf(request))?.[1];
      const [command, session] = printed!.split(" --session ");
      return say(
        toolUse("Bash", {
          command: `${command} --session "$(echo ${session})"`,
          description: "Close the checkpoint",
        }),
      );
    };
    const { api, hookLog } = await session(
      dir,
      {
        conversations: [
          mainThread([
            { reply: delegate },
            { reply: ownForm },
            {
              reply: ({ request }) => {
                told = JSON.stringify(toolResults(request));
                return say(text("I could not close it; stopping."));
              },
            },
          ]),
          honestAgent(dir, "research"),
        ],
      },
      { mode: "default", ownKey: true },
    );
    expect(api.problems()).toEqual([]);
    expect(told).toContain("inside Claude Code's sandbox");
    expect(readJson(dir, "state.json").active_projects[0].status).toBe("researched");
    expect(git(dir, ["log", "-1", "--format=%s"]).trim()).toBe("task 1: complete research");
    expect(hookLog).toContainEqual(
      expect.objectContaining({ event: "stop", note: "gate-out run by the stop hook" }),
    );
    expect(ok(dir, ["verify"]).stdout).toContain("0 phantom(s)");
  });
});
