import { type Finding, finding, type NamedDefinition, type Rule } from "../../rule-types.js";
import { closest } from "../../suggest.js";
import { agentReferences } from "./reference-scan.js";

/**
 * `Agent type 'x' not found` is a tool error at run time (contract §6.5): the model then improvises,
 * often doing the work itself without the agent's tools and instructions.
 */
export const unknownAgent: Rule = {
  id: "references/unknown-agent",
  severity: "error",
  description: "`subagent_type`, routing-table and “the `x` agent” references to agents that do not exist",
  check(model) {
    const builtIn = new Set(model.hosts.flatMap((h) => h.builtInAgents));
    const own = new Set(model.agents.flatMap((a) => (a.fileName ? [a.name, a.fileName] : [a.name])));
    const known = new Set([...builtIn, ...own]);
    const findings: Finding[] = [];
    for (const ref of agentReferences(model)) {
      if (known.has(ref.name)) continue;
      findings.push(
        finding(
          this,
          ref.file.path,
          ref.line,
          ref.column,
          `agent \`${ref.name}\` (${ref.via}) does not exist; the Agent call fails with "Agent type '${ref.name}' not found"`,
          hint(
            ref.name,
            { known, own },
            agentFolder(model.agents, ref.file.path.split("/")[0] ?? model.trees[0] ?? model.hostOf("").tree),
          ),
        ),
      );
    }
    return findings;
  },
};

/**
 * Where the repository keeps its agents in `tree`, as its own agent files say (`.opencode/agent/subagents`):
 * the folder most of them are in; `<tree>/agents` when it has none.
 */
function agentFolder(agents: readonly NamedDefinition[], tree: string): string {
  const counts = new Map<string, number>();
  for (const agent of agents) {
    const path = agent.file.path;
    if (!path.startsWith(`${tree}/`)) continue;
    const folder = path.slice(0, path.lastIndexOf("/"));
    counts.set(folder, (counts.get(folder) ?? 0) + 1);
  }
  const [top] = [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  return top?.[0] ?? `${tree}/agents`;
}

function hint(name: string, agents: { known: Set<string>; own: Set<string> }, folder: string): string {
  const near = closest(name, agents.known);
  if (near) return `Did you mean \`${near}\`? Otherwise create ${folder}/${name}.md.`;
  const custom = [...agents.own].sort();
  const listed = custom.length > 8 ? `${custom.slice(0, 8).join(", ")}, …` : custom.join(", ");
  return `Create ${folder}/${name}.md, or route to an existing agent${listed ? ` (${listed})` : ""}.`;
}
