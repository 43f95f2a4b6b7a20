import type { LintHost } from "../../lint-host.js";
import { fileName } from "../../parse/definition-name.js";
import { type Finding, finding, type LintFile, type Rule } from "../../rule-types.js";
import { definitionFiles, kindLabel } from "./definitions.js";

const DOCUMENTATION = /^(readme|changelog|contributing|license|notes|index)(\.[\w-]+)?\.md$/i;
const isDocumentation = (path: string) => DOCUMENTATION.test(path.slice(path.lastIndexOf("/") + 1));

const SKILL_REQUIRED = ["name", "description"];

/**
 * A folder's README is documentation: a host that skips a file without frontmatter is right to; one that loads
 * every `.md` of its agent folder as an agent (opencode) would offer the README to the model.
 */
function documentationFinding(
  rule: Pick<Rule, "id" | "severity">,
  file: LintFile,
  host: LintHost,
): Finding[] {
  if (!host.frontmatter.loadsEveryAgentFile || file.kind !== "agent") return [];
  const found = finding(
    rule,
    file.path,
    1,
    1,
    `${host.label} loads this documentation as an agent named "${fileName(file.path, file.kind)}" (every .md under its agent folder is one), so the model is offered it`,
    `Move it out of the agent folder (e.g. to ${host.tree}/docs/), or give it frontmatter if it is meant as an agent.`,
  );
  return [{ ...found, severity: "warning" }];
}

/**
 * An agent without the keys its host requires is skipped or listed blank; a skill without them is listed to the
 * model without a usable description, so it is never picked. (Commands: see missing-description.)
 */
export const missingRequired: Rule = {
  id: "frontmatter/missing-required",
  severity: "error",
  description: "agents and skills without a `name` or `description` in their frontmatter",
  check(model) {
    const findings: Finding[] = [];
    for (const file of definitionFiles(model)) {
      if (file.kind !== "agent" && file.kind !== "skill") continue;
      const host = model.hostOf(file.path);
      const required = file.kind === "agent" ? host.frontmatter.requiredAgentKeys : SKILL_REQUIRED;
      const fm = file.frontmatter;
      const consequence =
        file.kind === "agent"
          ? host.frontmatter.withoutRequiredAgentKey
          : "the model cannot tell when to use this skill";
      if (!fm && isDocumentation(file.path)) {
        findings.push(...documentationFinding(this, file, host));
        continue;
      }
      if (!fm) {
        findings.push(
          finding(
            this,
            file.path,
            1,
            1,
            `${kindLabel(file)} has no frontmatter; ${consequence}`,
            `Start the file with a \`---\` block holding ${required.map((k) => `\`${k}\``).join(" and ")}.`,
          ),
        );
        continue;
      }
      // Unreadable YAML is invalid-yaml's finding; listing every key as missing would only repeat it.
      if (!fm.data) continue;
      for (const key of required) {
        const value = fm.data[key];
        if (typeof value === "string" && value.trim() !== "") continue;
        const present = key in fm.data;
        findings.push(
          finding(
            this,
            file.path,
            fm.keyLines[key] ?? fm.startLine,
            1,
            `${kindLabel(file)} frontmatter ${present ? "has an empty" : "lacks"} \`${key}\`; ${consequence}`,
            key === "name"
              ? `Add \`name: ${fileName(file.path, file.kind)}\`.`
              : "Add `description:` saying what it does and when to use it (the model chooses by it).",
          ),
        );
      }
    }
    return findings;
  },
};
