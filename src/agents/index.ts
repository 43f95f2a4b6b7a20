/** Agents: their definition files, the catalog Baton routes from, the route itself, and what an agent is told. */
export { DEFAULT_AGENT_FILES, loadAgentCatalog, loadDefaultAgents } from "./agent-catalog.js";
export {
  type AgentDefinition,
  type AgentFileReader,
  type AgentFiles,
  AgentFrontmatter,
  agentTemplates,
  declaredName,
  parseAgentFile,
  RepoAgents,
  readRepoAgents,
} from "./agent-file.js";
export { buildPrompt, delegationContext, plannedArtifact } from "./prompt.js";
export {
  type AgentCatalog,
  extendDelegationPath,
  MAX_DELEGATION_DEPTH,
  type Route,
  type RouteRequest,
  resolveRoute,
  routeTask,
} from "./routing.js";
