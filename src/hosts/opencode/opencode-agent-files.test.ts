import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readRepoAgents } from "../../agents/agent-file.js";
import { agentFileReaders } from "../index.js";

let root = "";
afterEach(() => rmSync(root, { recursive: true, force: true }));

function file(path: string, text: string): void {
  mkdirSync(join(root, path, ".."), { recursive: true });
  writeFileSync(join(root, path), text);
}

describe("opencode agents in the catalog", () => {
  it("reads .opencode/agent(s)/**/*.md by path name (and base name when unique), with opencode's own keys", () => {
    root = mkdtempSync(join(tmpdir(), "baton-oc-agents-"));
    file(
      ".opencode/agent/subagents/lean-research-agent.md",
      "---\ndescription: Researches Lean\nmode: subagent\nmodel: anthropic/claude-haiku-4-5\ntools:\n  webfetch: false\n  bash: true\n  read: true\npermission:\n  edit: allow\nunknown_key: kept as an option\n---\nYou research Lean.\n",
    );
    file(".opencode/agents/planner.md", "---\ndescription: opencode planner\n---\nPlan it.\n");
    file(".opencode/agent/notes.md", "Just a prompt, no frontmatter.\n");
    file(
      ".claude/agents/planner.md",
      "---\nname: planner\ndescription: Claude planner\n---\nPlan it the Claude way.\n",
    );
    const agents = readRepoAgents(root, agentFileReaders()).agents;
    expect([...agents.keys()].sort()).toEqual([
      "lean-research-agent",
      "notes",
      "planner",
      "subagents/lean-research-agent",
    ]);
    expect(agents.get("lean-research-agent")).toMatchObject({
      name: "lean-research-agent",
      description: "Researches Lean",
      model: "anthropic/claude-haiku-4-5",
      tools: ["bash", "read"],
      systemPrompt: "You research Lean.",
    });
    expect(agents.get("subagents/lean-research-agent")?.name).toBe("subagents/lean-research-agent");
    // The Claude Code agent of the same name was there first.
    expect(agents.get("planner")?.description).toBe("Claude planner");
    expect(agents.get("notes")?.systemPrompt).toBe("Just a prompt, no frontmatter.");
  });

  it("names the file and field of a broken opencode agent only when a route picks it", () => {
    root = mkdtempSync(join(tmpdir(), "baton-oc-agents-"));
    file(".opencode/agent/broken.md", "---\nmode: sideways\n---\nBody\n");
    const agents = readRepoAgents(root, agentFileReaders()).agents;
    expect(agents.has("broken")).toBe(true);
    expect(() => agents.get("broken")).toThrow(/broken\.md: .*mode/);
  });
});
