import { basename } from "node:path";
import * as z from "zod/mini";
import { parseFrontmatter } from "../shared/frontmatter.js";
import { ConfigError, formatIssues } from "../shared/index.js";
import { markdownLines } from "../shared/markdown-lines.js";

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

/**
 * An agent file read the way Claude Code reads it (its lenient YAML fallback included, so
 * `description: Use this agent when: …` works here as it does there).
 */
export function parseAgentFile(path: string, text: string): AgentDefinition {
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  const fm = parseFrontmatter(lines);
  if (!fm) {
    throw new ConfigError(`${path}: an agent file starts with a YAML frontmatter block between "---" lines`);
  }
  if (fm.data === null) {
    const first = fm.errors[0];
    throw new ConfigError(
      `${path}${first ? `:${first.line}:${first.column}` : ""}: invalid frontmatter (${first?.message ?? "not a mapping"})`,
      { hint: `\`baton lint\` explains the problem; Claude Code cannot load this agent either.` },
    );
  }
  const parsed = AgentFrontmatter.safeParse(fm.data, { reportInput: true });
  if (!parsed.success) throw new ConfigError(`${path}: ${formatIssues(parsed.error.issues)}`);
  const data = parsed.data;
  const definition: AgentDefinition = {
    name: data.name,
    systemPrompt: lines.slice(fm.endLine).join("\n").trim(),
    source: path,
  };
  if (data.description !== undefined) definition.description = data.description;
  if (data.model !== undefined) definition.model = data.model;
  if (data.tools !== undefined) {
    definition.tools = (Array.isArray(data.tools) ? data.tools : data.tools.split(","))
      .map((t) => t.trim())
      .filter(Boolean);
  }
  return definition;
}

const NAME_LINE = /^name:[ \t]*(["']?)([^"'\r\n#]*?)\1[ \t]*(?:#.*)?\r?$/m;

/**
 * The name an agent file declares, read from its `name:` line without parsing the rest (a broken
 * description elsewhere in the block must not hide the name); the file's base name when it has none.
 */
export function declaredName(path: string, text: string): string {
  const block = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---/.exec(text)?.[1];
  const name = block === undefined ? undefined : NAME_LINE.exec(block)?.[2]?.trim();
  return name || basename(path, ".md");
}

/**
 * The repository's agents by name. Only names are read up front; an agent's file is parsed when a
 * route picks it, so a broken agent file that no route uses never blocks a run.
 */
export class RepoAgents {
  private readonly files = new Map<
    string,
    { path: string; text: string; parse: (path: string, text: string) => AgentDefinition }
  >();
  private readonly parsed = new Map<string, AgentDefinition>();

  /** A Claude Code agent file, by the name it declares; the first file of a name wins. */
  add(path: string, text: string): void {
    this.addNamed(declaredName(path, text), path, text, parseAgentFile);
  }

  /** An agent of another host (opencode names an agent by its path), with that host's reader. */
  addNamed(
    name: string,
    path: string,
    text: string,
    parse: (path: string, text: string) => AgentDefinition,
  ): void {
    if (!this.files.has(name)) this.files.set(name, { path, text, parse });
  }

  keys(): IterableIterator<string> {
    return this.files.keys();
  }

  has(name: string): boolean {
    return this.files.has(name);
  }

  /** The parsed agent; a ConfigError naming the file when that agent's own file is malformed. */
  get(name: string): AgentDefinition | undefined {
    const cached = this.parsed.get(name);
    if (cached) return cached;
    const file = this.files.get(name);
    if (!file) return undefined;
    const agent = { ...file.parse(file.path, file.text), name };
    this.parsed.set(name, agent);
    return agent;
  }
}

/** The repository's agents and the skills that delegate to one, as routing reads them. */
export interface AgentFiles {
  agents: RepoAgents;
  /** Skill name → the agent it delegates to, so a route may name either. */
  skills: Map<string, string>;
}

/**
 * Where one host keeps its agent definitions: its reader adds them to the catalog by name, and an
 * agent's file is parsed only when a route picks it.
 */
export interface AgentFileReader {
  /** The host, for messages ("Claude Code", "opencode"). */
  readonly host: string;
  read(root: string, into: AgentFiles): void;
}

/** Every host's agents, in the readers' order: the first file of a name wins. */
export function readRepoAgents(root: string, readers: readonly AgentFileReader[]): AgentFiles {
  const files: AgentFiles = { agents: new RepoAgents(), skills: new Map() };
  for (const reader of readers) reader.read(root, files);
  return files;
}

/**
 * The Markdown templates an agent's instructions hold: fenced `markdown`/`md` blocks of some length, read as
 * CommonMark (a ````` ```` ````` block holding ```` ``` ```` examples is one template, whole).
 */
export function agentTemplates(agent: AgentDefinition): Array<{ source: string; text: string }> {
  return markdownLines(agent.systemPrompt)
    .codeBlocks.filter(
      (block) =>
        block.top &&
        (block.lang === "markdown" || block.lang === "md") &&
        block.text.split(/\s+/).length >= 30,
    )
    .map((block) => ({ source: agent.source, text: block.text }));
}
