import { type Finding, finding, type Rule } from "../../rule-types.js";
import { definitionFiles, kindLabel, locate } from "./definitions.js";
import { isKnownModel } from "./known.js";

/** A model Claude Code cannot resolve fails the call at run time, long after the file was written. */
export const unknownModel: Rule = {
  id: "frontmatter/unknown-model",
  severity: "error",
  description:
    "`model` values that are neither an alias (sonnet, opus, haiku, fable, inherit) nor a Claude model id",
  check(model) {
    const findings: Finding[] = [];
    for (const file of definitionFiles(model)) {
      const value = file.frontmatter?.data?.["model"];
      if (value === undefined || value === null) continue;
      const text = String(value);
      if (typeof value === "string" && isKnownModel(text.trim(), file.path.startsWith(".opencode/")))
        continue;
      const where = locate(file, "model", text);
      findings.push(
        finding(
          this,
          file.path,
          where.line,
          where.column,
          `${kindLabel(file)} \`model: ${text}\` is not a model Claude Code knows`,
          "Use sonnet, opus, haiku, fable or inherit, or a full id such as `claude-sonnet-4-5`.",
        ),
      );
    }
    return findings;
  },
};
