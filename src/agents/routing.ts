import type { BatonConfig } from "../config/index.js";
import { UsageError } from "../shared/index.js";
import type { Operation, TaskEntry } from "../state/index.js";
import { taskTypeOf } from "../state/index.js";
import type { AgentDefinition, RepoAgents } from "./agent-file.js";

export const MAX_DELEGATION_DEPTH = 3;

export interface RouteRequest {
  operation: Operation;
  language: string;
  /** `--agent NAME`: use this agent (or skill) whatever the table says. */
  agentOverride?: string | undefined;
  /** `--language NAME` (the original's `--lean`, `--logic`…): route as if the task had this language. */
  languageOverride?: string | undefined;
}

export interface Route {
  /** The agent that runs, after resolving a skill name to the agent it delegates to. */
  agent: AgentDefinition;
  /** What the table or the override named (an agent or a skill). */
  target: string;
  /** Why this agent: "override", "config", or "default agent" when the repository has no such agent. */
  reason: string;
  language: string;
}

export interface AgentCatalog {
  repoAgents: Pick<RepoAgents, "get" | "keys" | "has">;
  skills: Map<string, string>;
  /** Baton's own agents per operation, used when the repository does not define the routed one. */
  defaults: Record<Operation, AgentDefinition>;
}

export function resolveRoute(config: BatonConfig, catalog: AgentCatalog, request: RouteRequest): Route {
  const language = request.languageOverride ?? request.language;
  const named = namedRoute(catalog, language);
  // A task's own type always routes; a --language override must be a type Baton or the repository knows.
  if (request.languageOverride && !config.languages.includes(language) && !named) {
    throw new UsageError(`unknown language "${language}"`, {
      hint: `Use one of: ${config.languages.join(", ")}.`,
    });
  }
  const configured = config.routing[language];
  const table = configured ?? { ...config.routing["general"]!, ...named };
  const target = request.agentOverride ?? table[request.operation];
  const agentName = catalog.skills.get(target) ?? target;
  const reason = request.agentOverride
    ? "override"
    : configured || !named?.[request.operation]
      ? `config: ${configured ? language : "general"} → ${request.operation}`
      : `convention: the repository's ${target} for ${language}`;
  const repoAgent = catalog.repoAgents.get(agentName);
  if (repoAgent) return { agent: repoAgent, target, reason, language };
  if (request.agentOverride) {
    // Baton's own agents by name: what an in-session gate-out pins when gate-in routed to a default.
    const builtIn = Object.values(catalog.defaults).find((a) => a.name === agentName);
    if (builtIn) return { agent: builtIn, target, reason, language };
    const known = [...catalog.repoAgents.keys(), ...catalog.skills.keys()];
    throw new UsageError(`no agent or skill named "${request.agentOverride}" in .claude/ or .opencode/`, {
      hint:
        known.length > 0
          ? `Known: ${known.join(", ")}.`
          : "This repository defines no agents; drop --agent to use Baton's default.",
    });
  }
  return {
    agent: catalog.defaults[request.operation],
    target,
    reason: `${reason} (default agent: the repository has no ${agentName})`,
    language,
  };
}

/**
 * The repository's own agents for a type no routing table names, by the naming the original system uses
 * (`python-research-agent`, `z3-implementation-agent`): ModelChecker routes `task_type: python` this way.
 */
function namedRoute(catalog: AgentCatalog, language: string): Partial<Record<Operation, string>> | null {
  const route: Partial<Record<Operation, string>> = {};
  const research = `${language}-research-agent`;
  const implement = `${language}-implementation-agent`;
  if (catalog.repoAgents.has(research)) route.research = research;
  if (catalog.repoAgents.has(implement)) route.implement = implement;
  return Object.keys(route).length > 0 ? route : null;
}

/** The route of an operation on a task: the task's language (or the override) through the table. */
export function routeTask(
  config: BatonConfig,
  catalog: AgentCatalog,
  task: Pick<TaskEntry, "language"> & Record<string, unknown>,
  request: Omit<RouteRequest, "language">,
): Route {
  return resolveRoute(config, catalog, { ...request, language: taskTypeOf(task) ?? config.defaultLanguage });
}

/** Where a delegation sits in the chain that led to it; the chain may not loop or grow past the limit. */
export function extendDelegationPath(path: readonly string[], next: string): string[] {
  if (path.includes(next)) {
    throw new UsageError(`delegation cycle: ${[...path, next].join(" → ")}`);
  }
  if (path.length >= MAX_DELEGATION_DEPTH + 1) {
    throw new UsageError(
      `delegation depth ${path.length} exceeds the limit of ${MAX_DELEGATION_DEPTH}: ${[...path, next].join(" → ")}`,
    );
  }
  return [...path, next];
}
