import { parseDocument } from "yaml";
import { quoteRiskyValues } from "../../../shared/frontmatter.js";
import { type Finding, finding, type Rule } from "../../rule-types.js";
import { definitionFiles } from "./definitions.js";

/**
 * `argument-hint: [TASK] [--dry-run]` is not YAML, yet Claude Code reads it: on a parse failure it quotes
 * such values and parses again. Anything else that reads the file (opencode, editors, Baton's own tooling,
 * a future Claude Code) sees a broken block, so this is a warning, not an error.
 */
export const nonstandardYaml: Rule = {
  id: "frontmatter/nonstandard-yaml",
  severity: "warning",
  description: "frontmatter that is not valid YAML and only loads through Claude Code's quoting fallback",
  check(model) {
    const findings: Finding[] = [];
    for (const file of definitionFiles(model)) {
      const fm = file.frontmatter;
      const first = fm?.errors[0];
      if (!fm?.recovered || !first) continue;
      const block = file.lines.slice(fm.startLine, fm.endLine - 1);
      const quoted = quoteRiskyValues(block.join("\n")).split("\n");
      // The fallback quotes every risky value; the ones to fix are those that do not parse on their own.
      const changed = block.flatMap((text, i) =>
        quoted[i] !== text && !parsesAlone(text)
          ? [{ line: fm.startLine + 1 + i, fix: quoted[i] ?? "" }]
          : [],
      );
      const target = changed[0];
      const line = target?.line ?? first.line;
      const text = file.lines[line - 1] ?? "";
      const column = target ? text.indexOf(":") + 3 : first.column;
      findings.push(
        finding(
          this,
          file.path,
          line,
          column,
          `frontmatter is not valid YAML (${first.message}); ${model.hostOf(file.path).frontmatter.withNonstandardYaml}`,
          changed.length > 0
            ? `Quote the value${changed.length > 1 ? "s" : ""}: ${changed.map((c) => `\`${c.fix.trim()}\``).join(", ")}.`
            : "Quote the values that contain `: `, `#`, `[`, `{`, `*` or `@`.",
        ),
      );
    }
    return findings;
  },
};

function parsesAlone(line: string): boolean {
  return parseDocument(line, { prettyErrors: false }).errors.length === 0;
}
