import { type Finding, finding, type Rule } from "../../rule-types.js";
import { closest } from "../../suggest.js";
import { skillReferences } from "./reference-scan.js";

/**
 * A Skill call with an unknown name fails, and an agent's `skills:` entry preloads nothing; either way the
 * procedure the author relied on is silently absent. Commands count as skills (contract §9).
 */
export const unknownSkill: Rule = {
  id: "references/unknown-skill",
  severity: "error",
  description: "`Skill(x)`, `skill: x`, `skills:` and routing-table references to skills that do not exist",
  check(model) {
    const known = new Set<string>();
    for (const def of [...model.skills, ...model.commands]) {
      known.add(def.name);
      if (def.fileName) known.add(def.fileName);
    }
    const agents = new Set(model.agents.map((a) => a.name));
    const findings: Finding[] = [];
    for (const ref of skillReferences(model)) {
      if (known.has(ref.name)) continue;
      const isAgent = agents.has(ref.name);
      findings.push(
        finding(
          this,
          ref.file.path,
          ref.line,
          ref.column,
          `skill \`${ref.name}\` (${ref.via}) does not exist${isAgent ? "; it is an agent" : ""}`,
          isAgent
            ? `Call agents with the Agent tool: \`subagent_type: "${ref.name}"\`.`
            : closest(ref.name, known)
              ? `Did you mean \`${closest(ref.name, known)}\`?`
              : `Create ${model.trees[0] ?? model.hostOf("").tree}/skills/${ref.name}/SKILL.md, or fix the name.`,
        ),
      );
    }
    return findings;
  },
};
