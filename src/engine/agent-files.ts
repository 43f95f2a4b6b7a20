import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import * as z from "zod/mini";
import { ConfigError, formatIssues } from "../shared/index.js";

/** Claude Code's agent file: YAML frontmatter (name, description, tools, model) and the system prompt. */
export const AgentFrontmatter = z.looseObject({
  name: z.string().check(z.minLength(1)),
  description: z.optional(z.string()),
  tools: z.optional(z.union([z.string(), z.array(z.string())])),
  model: z.optional(z.string()),
});
export type AgentFrontmatter = z.infer<typeof AgentFrontmatter>;

export interface AgentDefinition {
  name: string;
  description?: string;
  /** Tool names; undefined means the runner's default (all tools). */
  tools?: string[];
  model?: string;
  systemPrompt: string;
  /** Where the definition came from (a repository file or Baton's default agents). */
  source: string;
}

const FRONTMATTER = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?/;

export function parseAgentFile(path: string, text: string): AgentDefinition {
  const match = FRONTMATTER.exec(text);
  if (!match)
    throw new ConfigError(`${path}: an agent file starts with a YAML frontmatter block between "---" lines`);
  let raw: unknown;
  try {
    raw = parseYaml(match[1]!);
  } catch (error) {
    throw new ConfigError(`${path}: invalid frontmatter YAML (${(error as Error).message.split("\n")[0]})`, {
      cause: error,
    });
  }
  const parsed = AgentFrontmatter.safeParse(raw, { reportInput: true });
  if (!parsed.success) throw new ConfigError(`${path}: ${formatIssues(parsed.error.issues)}`);
  const fm = parsed.data;
  const definition: AgentDefinition = {
    name: fm.name,
    systemPrompt: text.slice(match[0].length).trim(),
    source: path,
  };
  if (fm.description !== undefined) definition.description = fm.description;
  if (fm.model !== undefined) definition.model = fm.model;
  if (fm.tools !== undefined) {
    definition.tools = (Array.isArray(fm.tools) ? fm.tools : fm.tools.split(","))
      .map((t) => t.trim())
      .filter(Boolean);
  }
  return definition;
}

/** `.claude/agents/*.md` of a repository, by agent name. */
export function readRepoAgents(root: string): Map<string, AgentDefinition> {
  const dir = join(root, ".claude", "agents");
  const agents = new Map<string, AgentDefinition>();
  if (!existsSync(dir)) return agents;
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith(".md"))
    .sort()) {
    const path = join(dir, file);
    const agent = parseAgentFile(path, readFileSync(path, "utf8"));
    agents.set(agent.name, agent);
  }
  return agents;
}

/**
 * `.claude/skills/*\/SKILL.md` that delegate to an agent (`subagent_type: "x"` in the body, as the
 * original's thin wrapper skills do): skill name → agent name, so a route may name either.
 */
export function readSkillDelegations(root: string): Map<string, string> {
  const dir = join(root, ".claude", "skills");
  const delegations = new Map<string, string>();
  if (!existsSync(dir)) return delegations;
  for (const skill of readdirSync(dir).sort()) {
    const path = join(dir, skill, "SKILL.md");
    if (!existsSync(path)) continue;
    const text = readFileSync(path, "utf8");
    const name = /^name:\s*(\S+)\s*$/m.exec(FRONTMATTER.exec(text)?.[1] ?? "")?.[1] ?? skill;
    const agent = /subagent_type:\s*"?([\w.-]+)"?/.exec(text)?.[1];
    if (agent) delegations.set(name, agent);
  }
  return delegations;
}
