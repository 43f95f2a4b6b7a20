import { describe, expect, it } from "vitest";
import { modelFromTexts } from "../../../../test/support/lint-model.js";
import { unknownAgent } from "./unknown-agent.js";

const AGENT = "---\nname: lean-research-agent\ndescription: d\n---\n";
const check = (files: Record<string, string>) =>
  unknownAgent.check(modelFromTexts({ ".claude/agents/lean-research-agent.md": AGENT, ...files }));

describe("references/unknown-agent", () => {
  it("reports subagent_type calls, routing tables and “the `x` agent” naming missing agents", async () => {
    const findings = await check({
      ".claude/skills/s/SKILL.md": [
        "---\nname: s\ndescription: d\n---",
        "Invoke the Task tool with:",
        "```",
        '  - subagent_type: "lean-reserch-agent"',
        "```",
        'Task(subagent_type="status-sync-manager", prompt="…")',
        "Then hand over to the `git-workflow-manager` agent.",
        "",
        "| Language | Agent |",
        "|----------|-------|",
        "| lean | `lean-research-agent` |",
        "| general | `task-executor` |",
      ].join("\n"),
    });
    expect(findings.map((f) => [f.line, f.column, f.message.split(" (")[0]])).toEqual([
      [7, 21, "agent `lean-reserch-agent`"],
      [9, 21, "agent `status-sync-manager`"],
      [10, 24, "agent `git-workflow-manager`"],
      [15, 14, "agent `task-executor`"],
    ]);
    expect(findings[0]!.hint).toContain("Did you mean `lean-research-agent`?");
  });

  it("passes existing and built-in agents, templates, counter-examples and prose", async () => {
    const findings = await check({
      ".claude/commands/c.md": [
        "---\ndescription: d\n---",
        'subagent_type: "lean-research-agent"',
        "subagent_type=general-purpose",
        '"subagent_type": "Explore"',
        'subagent_type: "{agent-name}"',
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell variable, written as the hook or doc would
        'subagent_type="${target_agent}"',
        "**DO NOT** use subagent_type: missing-agent here",
        "The skill spawns the delegated agent; the `lean` agent mapping lives elsewhere.",
        "",
        "| Operation | Agent | Notes |",
        "|---|---|---|",
        "| /todo | (direct execution) | none |",
        "| /review | Agent-specific | - |",
        "| /errors | reviewer | plain word |",
        "| /plan | lean: planner-agent, default: x | prose |",
      ].join("\n"),
      ".claude/docs/guide.md": 'subagent_type: "only-in-docs"\n',
    });
    // "the `lean` agent" is backticked but exists as no agent: it is reported, all else passes.
    expect(findings.map((f) => f.message.split(" (")[0])).toEqual(["agent `lean`"]);
  });

  it("passes each host's own built-in agents (opencode's general and explore)", async () => {
    const findings = await check({
      ".opencode/command/c.md": [
        "---\ndescription: d\n---",
        "subagent_type: general",
        'subagent_type: "explore"',
        "subagent_type: generic",
      ].join("\n"),
    });
    expect(findings.map((f) => f.message.split(" (")[0])).toEqual(["agent `generic`"]);
  });
});

describe("the folder an unknown agent's hint names", () => {
  it("is the one the repository keeps its agents in", async () => {
    const findings = await unknownAgent.check(
      modelFromTexts({
        ".opencode/agent/subagents/python-research-agent.md": "---\ndescription: d\n---\nBody\n",
        ".opencode/command/research.md":
          "---\ndescription: r\n---\nUse the task tool with subagent_type: z3-research-agent.\n",
      }),
    );
    expect(findings.map((f) => f.hint)).toEqual([
      expect.stringContaining("Create .opencode/agent/subagents/z3-research-agent.md"),
    ]);
  });
});
