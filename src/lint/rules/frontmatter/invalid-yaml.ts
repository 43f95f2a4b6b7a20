import { type Finding, finding, type Rule } from "../../types.js";
import { definitionFiles, kindLabel } from "./definitions.js";

export const invalidYaml: Rule = {
  id: "frontmatter/invalid-yaml",
  severity: "error",
  description: "frontmatter Claude Code cannot parse, so it drops it (and skips the agent)",
  check(model) {
    const findings: Finding[] = [];
    for (const file of definitionFiles(model)) {
      const fm = file.frontmatter;
      const first = fm?.errors[0];
      if (!fm || !first || fm.recovered) continue;
      const more = fm.errors.length > 1 ? ` (+${fm.errors.length - 1} more)` : "";
      const consequence =
        file.kind === "agent"
          ? "Claude Code silently skips this agent: it is not listed and a call to it fails"
          : `Claude Code loads this ${kindLabel(file)} with no frontmatter: its description, allowed-tools and model are ignored`;
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
