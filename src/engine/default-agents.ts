import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type AgentDefinition, parseAgentFile, readRepoAgents, readSkillDelegations } from "./agent-files.js";
import type { GateOperation } from "./gates/types.js";

export const DEFAULT_AGENT_FILES: Record<GateOperation, string> = {
  research: "baton-researcher.md",
  plan: "baton-planner.md",
  implement: "baton-implementer.md",
  revise: "baton-reviser.md",
};

/** The package's `agents/` folder, found from this module whether it runs from src/ or a dist/ chunk. */
function defaultAgentsDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, "agents", DEFAULT_AGENT_FILES.research);
    if (existsSync(candidate) && existsSync(join(dir, "package.json"))) return join(dir, "agents");
    const parent = dirname(dir);
    if (parent === dir) throw new Error("Baton's default agents/ folder is missing from the installation");
    dir = parent;
  }
}

export function loadDefaultAgents(): Record<GateOperation, AgentDefinition> {
  const dir = defaultAgentsDir();
  const load = (op: GateOperation) => {
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

/** Everything routing chooses from: the repository's agents and skills, and Baton's defaults. */
export function loadAgentCatalog(root: string) {
  return {
    repoAgents: readRepoAgents(root),
    skills: readSkillDelegations(root),
    defaults: loadDefaultAgents(),
  };
}
