import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseFrontmatter } from "../shared/frontmatter.js";
import { OPERATIONS } from "../shared/operation-names.js";
import { defaultAgentsDir } from "../shared/package.js";
import type { Operation } from "../state/index.js";

/** A file `baton init` writes, by its path relative to the repository root. */
export interface TemplateFile {
  path: string;
  content: string;
}

export const GATE_OPERATIONS = OPERATIONS;

export const GATE_DESCRIPTIONS: Record<Operation, string> = {
  research: "Research a task through Baton's gates (GATE IN, the research agent, GATE OUT, commit)",
  plan: "Write a task's implementation plan through Baton's gates (GATE IN, the planner, GATE OUT, commit)",
  implement: "Implement a planned task through Baton's gates (GATE IN, the implementer, GATE OUT, commit)",
  revise: "Revise a task's plan through Baton's gates (GATE IN, the reviser, GATE OUT, commit)",
};

/**
 * A YAML scalar for the frontmatter: plain when the frontmatter parser that the engine and lint use
 * reads it back unchanged, else double-quoted (JSON strings are valid YAML), so a hint like
 * `[--dry-run]` is not read as a list and a description with `: ` needs no fallback.
 */
export function yamlScalar(value: string): string {
  const read = parseFrontmatter(["---", `key: ${value}`, "---"]);
  const plain =
    read !== null && read.errors.length === 0 && read.data?.["key"] === value && value === value.trim();
  return plain ? value : JSON.stringify(value);
}

export function frontmatter(fields: Record<string, string | boolean>): string {
  const lines = Object.entries(fields).map(
    ([key, value]) => `${key}: ${typeof value === "boolean" ? String(value) : yamlScalar(value)}`,
  );
  return `---\n${lines.join("\n")}\n---\n`;
}

/** `Bash(<bin> <sub>:*)`: Claude Code's prefix rule, matching the commands exactly as the files write them. */
export function bashRule(bin: string, subcommand: string): string {
  return `Bash(${bin} ${subcommand}:*)`;
}

/** The body of task/todo/errors, the same for every host: Baton's output is the answer, relayed as is. */
export function relayBody(bin: string, subcommand: string): string {
  return [
    `Baton ran \`baton ${subcommand} $ARGUMENTS\`:`,
    "",
    `!\`${bin} ${subcommand} $ARGUMENTS\``,
    "",
    "Report this output to the user as it is. Do not edit anything under specs/ yourself; if the",
    "command failed, say why and what its message suggests.",
    "",
  ].join("\n");
}

/** Baton's default agents, as the files of its package hold them (each host writes them in its own form). */
export function defaultAgentFiles(): TemplateFile[] {
  const dir = defaultAgentsDir();
  return readdirSync(dir)
    .filter((name) => /^baton-.*\.md$/.test(name))
    .sort()
    .map((name) => ({ path: name, content: readFileSync(join(dir, name), "utf8") }));
}
