import { hostOf } from "../../file-host.js";
import { fileName } from "../../parse/classify.js";
import { type Finding, finding, type LintFile, type Rule } from "../../rule-types.js";
import { definitionFiles, kindLabel } from "./definitions.js";

const DOCUMENTATION = /^(readme|changelog|contributing|license|notes|index)(\.[\w-]+)?\.md$/i;
const isDocumentation = (path: string) => DOCUMENTATION.test(path.slice(path.lastIndexOf("/") + 1));

const REQUIRED: Record<string, string[]> = { agent: ["name", "description"], skill: ["name", "description"] };
// opencode names an agent by its path; without a description a sub-agent is listed to the model blank.
const OPENCODE_REQUIRED: Record<string, string[]> = {
  agent: ["description"],
  skill: ["name", "description"],
};

/**
 * An agent without `name` and `description` is not loaded at all; a skill without them is listed to the
 * model without a usable description, so it is never picked. (Commands: see missing-description.)
 */
/**
 * A folder's README is documentation: Claude Code skips a file without frontmatter, which is right for it;
 * opencode loads every `.md` there as an agent, so it would offer the README to the model.
 */
function documentationFinding(
  rule: Pick<Rule, "id" | "severity">,
  file: LintFile,
  opencode: boolean,
): Finding[] {
  if (!opencode || file.kind !== "agent") return [];
  const found = finding(
    rule,
    file.path,
    1,
    1,
    `opencode loads this documentation as an agent named "${fileName(file.path, file.kind)}" (every .md under its agent folder is one), so the model is offered it`,
    "Move it out of the agent folder (e.g. to .opencode/docs/), or give it frontmatter if it is meant as an agent.",
  );
  return [{ ...found, severity: "warning" }];
}

export const missingRequired: Rule = {
  id: "frontmatter/missing-required",
  severity: "error",
  description: "agents and skills without a `name` or `description` in their frontmatter",
  check(model) {
    const findings: Finding[] = [];
    for (const file of definitionFiles(model)) {
      const opencode = hostOf(file.path) === "opencode";
      const required = (opencode ? OPENCODE_REQUIRED : REQUIRED)[file.kind];
      if (!required) continue;
      const fm = file.frontmatter;
      const consequence =
        file.kind !== "agent"
          ? "the model cannot tell when to use this skill"
          : opencode
            ? "opencode lists it to the model with no description, so the model cannot tell when to use it"
            : "Claude Code skips this agent";
      if (!fm && isDocumentation(file.path)) {
        findings.push(...documentationFinding(this, file, opencode));
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
