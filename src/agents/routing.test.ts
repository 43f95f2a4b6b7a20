import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { resolveConfig } from "../config/index.js";
import { agentFileReaders } from "../hosts/index.js";
import { loadDefaultAgents } from "./agent-catalog.js";
import { parseAgentFile, readRepoAgents } from "./agent-file.js";
import { extendDelegationPath, resolveRoute } from "./routing.js";

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "baton-route-"));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function write(path: string, text: string) {
  mkdirSync(join(root, path, ".."), { recursive: true });
  writeFileSync(join(root, path), text);
}

function catalog() {
  return {
    repoAgents: readRepoAgents(root, agentFileReaders()).agents,
    skills: readRepoAgents(root, agentFileReaders()).skills,
    defaults: loadDefaultAgents(),
  };
}

describe("agent files", () => {
  it("reads Claude Code's agent format", () => {
    const agent = parseAgentFile(
      "a.md",
      "---\nname: r\ndescription: d\ntools: Read, Write\nmodel: sonnet\n---\n\n# Prompt\nDo it.\n",
    );
    expect(agent).toEqual({
      name: "r",
      description: "d",
      tools: ["Read", "Write"],
      model: "sonnet",
      systemPrompt: "# Prompt\nDo it.",
      source: "a.md",
    });
  });

  it("names the file and field of a bad frontmatter", () => {
    expect(() => parseAgentFile(".claude/agents/x.md", "---\ndescription: no name\n---\nbody")).toThrow(
      /\.claude\/agents\/x\.md: name: expected string \(missing\)/,
    );
    expect(() => parseAgentFile("x.md", "no frontmatter")).toThrow(/starts with a YAML frontmatter/);
  });

  it("reads agent files as people write them, the way Claude Code does", () => {
    const colon = parseAgentFile(
      "a.md",
      "---\r\nname: r\r\ndescription: Use this agent when: the user asks for research\r\ntools: [Read] [Write]\r\n---\r\nDo it.\r\n",
    );
    expect(colon).toMatchObject({
      name: "r",
      description: "Use this agent when: the user asks for research",
    });
    expect(colon.systemPrompt).toBe("Do it.");
    expect(parseAgentFile("b.md", "\uFEFF---\nname: b\n---\nbody").name).toBe("b");
  });

  it("parses only the agent a route picks: a broken unrelated agent never blocks a run", () => {
    write(
      ".claude/agents/broken.md",
      "---\nname: broken-agent\ndescription: [unclosed\n  - : :\n---\nbody\n",
    );
    write(
      ".claude/agents/good.md",
      "---\nname: general-research-agent\ndescription: Use when: research\n---\nbody\n",
    );
    const config = resolveConfig(root, null, {});
    const route = resolveRoute(config, catalog(), { operation: "research", language: "general" });
    expect(route.agent.name).toBe("general-research-agent");
    expect(() =>
      resolveRoute(config, catalog(), {
        operation: "research",
        language: "general",
        agentOverride: "broken-agent",
      }),
    ).toThrow(/broken\.md:3:\d+: invalid frontmatter/);
  });

  it("ships four default agents with the return-metadata contract", () => {
    const defaults = loadDefaultAgents();
    expect(Object.values(defaults).map((a) => a.name)).toEqual([
      "baton-researcher",
      "baton-planner",
      "baton-implementer",
      "baton-reviser",
    ]);
    for (const agent of Object.values(defaults)) {
      expect(agent.systemPrompt).toContain("session_id");
      expect(agent.systemPrompt).toContain("Never write `completed`");
      expect(agent.systemPrompt).toContain("TASK_ERROR");
    }
  });
});

describe("routing", () => {
  const config = resolveConfig("/r", null, {});

  it("uses the repository's agent named by the language table", () => {
    write(".claude/agents/lean-research-agent.md", "---\nname: lean-research-agent\n---\nLean research.");
    const route = resolveRoute(config, catalog(), { operation: "research", language: "lean" });
    expect(route).toMatchObject({
      target: "lean-research-agent",
      reason: "config: lean → research",
      agent: { systemPrompt: "Lean research." },
    });
  });

  it("falls back to Baton's default agent, saying so", () => {
    const route = resolveRoute(config, catalog(), { operation: "plan", language: "general" });
    expect(route.agent.name).toBe("baton-planner");
    expect(route.reason).toBe("config: general → plan (default agent: the repository has no planner-agent)");
  });

  it("resolves a skill to the agent it delegates to, and honours overrides", () => {
    write(".claude/agents/typst-research-agent.md", "---\nname: typst-research-agent\n---\nTypst.");
    write(
      ".claude/skills/skill-typst-research/SKILL.md",
      '---\nname: skill-typst-research\n---\nDelegate:\n  - subagent_type: "typst-research-agent"\n',
    );
    const bySkill = resolveRoute(config, catalog(), {
      operation: "research",
      language: "general",
      agentOverride: "skill-typst-research",
    });
    expect(bySkill).toMatchObject({
      target: "skill-typst-research",
      reason: "override",
      agent: { name: "typst-research-agent" },
    });
    const byLanguage = resolveRoute(config, catalog(), {
      operation: "research",
      language: "general",
      languageOverride: "typst",
    });
    expect(byLanguage.agent.name).toBe("typst-research-agent");
    expect(() =>
      resolveRoute(config, catalog(), {
        operation: "research",
        language: "general",
        agentOverride: "nobody",
      }),
    ).toThrow(/no agent or skill named "nobody"/);
    // A task's own type routes even when no table names it (the general route); an override must be known.
    expect(resolveRoute(config, catalog(), { operation: "research", language: "cobol" }).reason).toMatch(
      /^config: general → research/,
    );
    expect(() =>
      resolveRoute(config, catalog(), {
        operation: "research",
        language: "general",
        languageOverride: "cobol",
      }),
    ).toThrow(/unknown language "cobol"/);
  });

  it("limits delegation depth and refuses cycles", () => {
    expect(extendDelegationPath(["baton"], "research")).toEqual(["baton", "research"]);
    expect(() => extendDelegationPath(["baton", "research"], "baton")).toThrow(
      /delegation cycle: baton → research → baton/,
    );
    expect(() => extendDelegationPath(["baton", "a", "b", "c"], "d")).toThrow(/exceeds the limit of 3/);
  });
});
