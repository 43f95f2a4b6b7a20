import { readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join, relative, sep } from "node:path";
import * as z from "zod/mini";
import type { AgentDefinition, AgentFileReader, RepoAgents } from "../../agents/index.js";
import { parseFrontmatter } from "../../shared/frontmatter.js";
import { ConfigError, formatIssues } from "../../shared/index.js";
import { present } from "../../shared/present.js";
import { AGENT_MODES } from "./opencode-words.js";

/**
 * opencode's agents (contract 3.1, 3.2): `.opencode/agent/**\/*.md` or `.opencode/agents/**\/*.md`, named by
 * their path without `.md` (`subagents/lean-research-agent`), with no `name` key; `tools` is a map of tool
 * name → enabled, `model` is `provider/model`, and unknown keys are options, not errors.
 */
const OpencodeFrontmatter = z.looseObject({
  description: z.optional(z.string()),
  model: z.optional(z.string()),
  mode: z.optional(z.enum(AGENT_MODES)),
  tools: z.optional(z.union([z.record(z.string(), z.boolean()), z.array(z.string()), z.string()])),
  prompt: z.optional(z.string()),
});

export function parseOpencodeAgent(path: string, text: string): AgentDefinition {
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  const fm = parseFrontmatter(lines);
  const body = lines
    .slice(fm?.endLine ?? 0)
    .join("\n")
    .trim();
  if (fm && fm.data === null) {
    const first = fm.errors[0];
    throw new ConfigError(
      `${path}${first ? `:${first.line}:${first.column}` : ""}: invalid frontmatter (${first?.message ?? "not a mapping"})`,
      { hint: "`baton lint` explains the problem; opencode cannot load this agent either." },
    );
  }
  const parsed = OpencodeFrontmatter.safeParse(fm?.data ?? {}, { reportInput: true });
  if (!parsed.success) throw new ConfigError(`${path}: ${formatIssues(parsed.error.issues)}`);
  const data = parsed.data;
  const definition: AgentDefinition = {
    name: basename(path, ".md"),
    systemPrompt: body || data.prompt || "",
    source: path,
  };
  if (data.description !== undefined) definition.description = data.description;
  if (data.model !== undefined) definition.model = data.model;
  const tools = data.tools;
  if (tools !== undefined) {
    definition.tools = Array.isArray(tools)
      ? tools
      : typeof tools === "string"
        ? tools
            .split(",")
            .map((t) => t.trim())
            .filter(Boolean)
        : Object.entries(tools)
            .filter(([, on]) => on)
            .map(([name]) => name);
  }
  return definition;
}

function markdownFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (at: string) => {
    for (const name of readdirSync(at).sort()) {
      const path = join(at, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith(".md")) out.push(path);
    }
  };
  walk(dir);
  return out;
}

/**
 * Adds the repository's opencode agents to the catalog, by their opencode name and, when no other agent
 * has it, by their file's base name too (routing tables name `lean-research-agent`, opencode
 * `subagents/lean-research-agent`). Agents of `.claude/agents` added first keep their names.
 */
export function addOpencodeAgents(root: string, agents: RepoAgents): void {
  const files: Array<{ name: string; path: string }> = [];
  for (const folder of ["agent", "agents"]) {
    const dir = join(root, ".opencode", folder);
    if (!present(dir)) continue;
    for (const path of markdownFiles(dir)) {
      files.push({ name: relative(dir, path).slice(0, -3).split(sep).join("/"), path });
    }
  }
  const bases = new Map<string, number>();
  for (const { path } of files) bases.set(basename(path, ".md"), (bases.get(basename(path, ".md")) ?? 0) + 1);
  for (const { name, path } of files) {
    const text = readFileSync(path, "utf8");
    agents.addNamed(name, path, text, parseOpencodeAgent);
    const base = basename(path, ".md");
    if (base !== name && bases.get(base) === 1) agents.addNamed(base, path, text, parseOpencodeAgent);
  }
}

export const opencodeAgentFiles: AgentFileReader = {
  host: "opencode",
  read: (root, into) => addOpencodeAgents(root, into.agents),
};
