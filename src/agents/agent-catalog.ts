import { readFileSync } from "node:fs";
import { join } from "node:path";
import { defaultAgentsDir } from "../shared/package.js";
import type { Operation } from "../state/index.js";
import { type AgentDefinition, type AgentFileReader, parseAgentFile, readRepoAgents } from "./agent-file.js";

export const DEFAULT_AGENT_FILES: Record<Operation, string> = {
  research: "baton-researcher.md",
  plan: "baton-planner.md",
  implement: "baton-implementer.md",
  revise: "baton-reviser.md",
};

export function loadDefaultAgents(): Record<Operation, AgentDefinition> {
  const dir = defaultAgentsDir();
  const load = (op: Operation) => {
    const path = join(dir, DEFAULT_AGENT_FILES[op]);
    return parseAgentFile(path, readFileSync(path, "utf8"));
  };
  return {
    research: load("research"),
    plan: load("plan"),
    implement: load("implement"),
    revise: load("revise"),
  };
}

/** Everything routing chooses from: every host's agents and skills in the repository, and Baton's defaults. */
export function loadAgentCatalog(root: string, readers: readonly AgentFileReader[]) {
  const { agents, skills } = readRepoAgents(root, readers);
  return { repoAgents: agents, skills, defaults: loadDefaultAgents() };
}
