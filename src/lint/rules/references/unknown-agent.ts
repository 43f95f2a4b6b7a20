import { type Finding, finding, type Rule } from "../../rule-types.js";
import { closest } from "../../suggest.js";
import { agentReferences } from "./reference-scan.js";

/** Built-in agent types (contract §6.5, §7) and the `fork` pseudo-type (§6.2). */
const BUILT_IN = new Set([
  "general-purpose",
  "Explore",
  "Plan",
  "claude",
  "statusline-setup",
  "output-style-setup",
  "fork",
]);

/**
 * `Agent type 'x' not found` is a tool error at run time (contract §6.5): the model then improvises,
 * often doing the work itself without the agent's tools and instructions.
 */
export const unknownAgent: Rule = {
  id: "references/unknown-agent",
  severity: "error",
  description: "`subagent_type`, routing-table and “the `x` agent” references to agents that do not exist",
  check(model) {
    const known = new Set(BUILT_IN);
    for (const agent of model.agents) {
      known.add(agent.name);
      if (agent.fileName) known.add(agent.fileName);
    }
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
          hint(ref.name, known, model.trees[0] ?? ".claude"),
        ),
      );
    }
    return findings;
  },
};

function hint(name: string, known: Set<string>, tree: string): string {
  const near = closest(name, known);
  if (near) return `Did you mean \`${near}\`? Otherwise create ${tree}/agents/${name}.md.`;
  const custom = [...known].filter((k) => !BUILT_IN.has(k)).sort();
  const listed = custom.length > 8 ? `${custom.slice(0, 8).join(", ")}, …` : custom.join(", ");
  return `Create ${tree}/agents/${name}.md, or route to an existing agent${listed ? ` (${listed})` : ""}.`;
}
