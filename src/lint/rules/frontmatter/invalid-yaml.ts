import { type Finding, finding, type Rule } from "../../rule-types.js";
import { definitionFiles, kindLabel } from "./definitions.js";

export const invalidYaml: Rule = {
  id: "frontmatter/invalid-yaml",
  severity: "error",
  description: "frontmatter the host cannot parse, so it drops it (and skips the agent)",
  check(model) {
    const findings: Finding[] = [];
    for (const file of definitionFiles(model)) {
      const fm = file.frontmatter;
      const first = fm?.errors[0];
      if (!fm || !first || fm.recovered) continue;
      const more = fm.errors.length > 1 ? ` (+${fm.errors.length - 1} more)` : "";
      const host = model.hostOf(file.path).label;
      const consequence =
        file.kind === "agent"
          ? `${host} silently skips this agent: it is not listed and a call to it fails`
          : `${host} loads this ${kindLabel(file)} with no frontmatter: its description and settings are ignored`;
      findings.push(
        finding(
          this,
          file.path,
          first.line,
          first.column,
          `invalid YAML frontmatter: ${first.message}${more}; ${consequence}`,
          "Fix the YAML (quote values containing `: `, `#`, `[`, `{`, `*` or `@`) and check the block closes with `---`.",
        ),
      );
    }
    return findings;
  },
};
