import { type Finding, finding, type Rule } from "../../rule-types.js";
import { closest } from "../../suggest.js";
import { definitionFiles, kindLabel } from "./definitions.js";

/** A host ignores keys it does not know, so a typo (`allowed_tools`, `tool`) silently does nothing. */
export const unknownKey: Rule = {
  id: "frontmatter/unknown-key",
  severity: "warning",
  description:
    "frontmatter keys the host (Claude Code or opencode) does not read (often a typo that silently does nothing)",
  check(model) {
    const findings: Finding[] = [];
    for (const file of definitionFiles(model)) {
      const data = file.frontmatter?.data;
      if (!data) continue;
      const host = model.hostOf(file.path).frontmatter;
      const known = new Set(host.keys[kindLabel(file)]);
      for (const key of Object.keys(data)) {
        if (known.has(key)) continue;
        const suggestion = closest(key, known);
        findings.push(
          finding(
            this,
            file.path,
            file.frontmatter?.keyLines[key] ?? 1,
            1,
            `unknown ${kindLabel(file)} frontmatter key \`${key}\`; ${host.withUnknownKey}`,
            suggestion
              ? `Did you mean \`${suggestion}\`?`
              : `Known keys: ${[...known].join(", ")}. Remove it, or disable this rule if a tool of yours reads it.`,
          ),
        );
      }
    }
    return findings;
  },
};
